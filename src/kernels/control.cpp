#include "kernels/control.h"

#include <cstdlib>
#include <mutex>

#include "base/error.h"

namespace plumb::kernels {

std::atomic<int32_t> g_planted_control{kNoControl};

namespace {
std::mutex& registry_mutex() {
  static std::mutex m;
  return m;
}
std::vector<ControlInfo>& registry() {
  static std::vector<ControlInfo> r;
  return r;
}
}  // namespace

ControlId register_control(std::string_view kernel, std::string_view name, std::string_view description) {
  std::lock_guard lock(registry_mutex());
  auto& r = registry();
  for (const auto& c : r)
    if (c.kernel == kernel && c.name == name) return c.id;
  const ControlId id = ControlId(r.size());
  r.push_back({id, std::string(kernel), std::string(name), std::string(description)});
  return id;
}

std::vector<ControlInfo> all_controls() {
  std::lock_guard lock(registry_mutex());
  return registry();
}

std::optional<ControlId> find_control(std::string_view full_name) {
  for (const auto& c : all_controls())
    if (c.full_name() == full_name) return c.id;
  return std::nullopt;
}

void plant_from_environment() {
  const char* env = std::getenv("PLUMB_PLANT");
  if (!env || !*env) return;
  const auto id = find_control(env);
  if (!id) fail("PLUMB_PLANT={}: no such planted control (see plumb contract --list)", env);
  g_planted_control.store(*id);
}

}  // namespace plumb::kernels
