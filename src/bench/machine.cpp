#include "bench/machine.h"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace plumb::bench {
namespace {

std::string trim(std::string s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\r\n") - first + 1);
}

std::string host_name() {
  char buf[256] = {};
  if (gethostname(buf, sizeof(buf) - 1) != 0) return "unknown";
  return buf;
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    const auto colon = line.find(':');
    if (colon != std::string::npos && trim(line.substr(0, colon)) == "model name") return trim(line.substr(colon + 1));
  }
  return "unknown";
}

std::vector<std::string> gpu_names() {
  std::vector<std::string> names;
  FILE* pipe = popen("nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null", "r");
  if (!pipe) return names;
  char buf[512];
  while (std::fgets(buf, sizeof(buf), pipe)) {
    std::string name = trim(buf);
    if (!name.empty()) names.push_back(std::move(name));
  }
  // A failing nvidia-smi (no driver) may still print; only a clean exit counts.
  if (pclose(pipe) != 0) names.clear();
  return names;
}

}  // namespace

nlohmann::json machine_json() {
  const auto gpus = gpu_names();
  return {{"hostname", host_name()},
          {"cpu", cpu_model()},
          {"nproc", std::thread::hardware_concurrency()},
          {"gpu", gpus.empty() ? nlohmann::json("none") : nlohmann::json(gpus)}};
}

}  // namespace plumb::bench
