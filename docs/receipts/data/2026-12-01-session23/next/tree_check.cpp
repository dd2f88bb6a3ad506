#include <cstdio>
#include <cstring>
#include <random>
#include <cmath>
int main() {
  std::mt19937 g(1); std::normal_distribution<float> n(0, 1); std::uniform_int_distribution<int> e(-20, 20);
  for (int trial = 0; trial < 100000; ++trial) {
    float p[32], v[32], w[32];
    for (int i = 0; i < 32; ++i) p[i] = std::ldexp(n(g), e(g));
    for (int i = 0; i < 32; ++i) v[i] = p[i];
    for (int o = 16; o > 0; o >>= 1) { float t[32]; for (int i = 0; i < 32; ++i) t[i] = v[i] + v[i ^ o]; std::memcpy(v, t, sizeof v); }
    float store[32];
    for (int l = 0; l < 32; ++l) store[16 * (l % 2) + l / 2] = p[l];
    float d[2];
    for (int q = 0; q < 2; ++q) { for (int m = 0; m < 16; ++m) w[m] = store[16 * q + m];
      for (int o = 8; o > 0; o >>= 1) for (int m = 0; m < o; ++m) w[m] = w[m] + w[m + o];
      d[q] = w[0]; }
    float got0 = d[0] + d[1], got1 = d[1] + d[0];
    if (std::memcmp(&got0, &v[0], 4) || std::memcmp(&got1, &v[1], 4)) { std::printf("mismatch at %d\n", trial); return 1; }
  }
  std::puts("pair tree == xor butterfly (lanes 0 and 1) on 100000 random 32-lane sets");
}
