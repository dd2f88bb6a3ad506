// Choosing a host backend by numerics.
#include "kernels/backend.h"

#include "base/error.h"
#include "kernels/cpu/cpu_backend.h"
#include "kernels/ref/ref_backend.h"

namespace plumb::kernels {

const char* numerics_name(Numerics numerics) { return numerics == Numerics::oracle ? "oracle" : "release"; }

Numerics parse_numerics(const std::string& name) {
  if (name == "oracle") return Numerics::oracle;
  if (name == "release") return Numerics::release;
  fail("unknown numerics '{}': use 'release' (production) or 'oracle' (float64 reference)", name);
}

std::unique_ptr<Backend> make_host_backend(Numerics numerics) {
  if (numerics == Numerics::oracle) return std::make_unique<ref::RefBackend>();
  return std::make_unique<cpu::CpuBackend>();
}

}  // namespace plumb::kernels
