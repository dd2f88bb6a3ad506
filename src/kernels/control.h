// Planted controls: deliberate, realistic defects compiled into kernels and switched on at run time, so the
// kernel contract can prove its gates see them (a control that stays green means a gate is blind). With no
// control planted the kernels run the code that ships; the cost is one relaxed load per kernel call.
//
// A kernel file declares its controls at namespace scope:
//   const ControlId kDropLastKBlock = register_control("fp8_linear", "drop_last_k_block", "the last K block is skipped");
// and tests `planted(kDropLastKBlock)` once per call. PLUMB_PLANT=<kernel>/<name> plants one from the environment.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace plumb::kernels {

using ControlId = int32_t;
constexpr ControlId kNoControl = -1;

struct ControlInfo {
  ControlId id;
  std::string kernel;       // the kernel family it belongs to ("fp8_linear")
  std::string name;         // "drop_last_k_block"
  std::string description;  // what the defect does
  std::string full_name() const { return kernel + "/" + name; }
};

ControlId register_control(std::string_view kernel, std::string_view name, std::string_view description);
std::vector<ControlInfo> all_controls();
std::optional<ControlId> find_control(std::string_view full_name);

extern std::atomic<int32_t> g_planted_control;
inline bool planted(ControlId id) { return g_planted_control.load(std::memory_order_relaxed) == id; }
inline ControlId planted_control() { return g_planted_control.load(std::memory_order_relaxed); }

// Plants one control (kNoControl: none) for the lifetime of the guard.
class PlantedControl {
 public:
  explicit PlantedControl(ControlId id) : previous_(g_planted_control.exchange(id)) {}
  ~PlantedControl() { g_planted_control.store(previous_); }
  PlantedControl(const PlantedControl&) = delete;
  PlantedControl& operator=(const PlantedControl&) = delete;

 private:
  ControlId previous_;
};

// Reads PLUMB_PLANT once; throws plumb::Error for an unknown name.
void plant_from_environment();

}  // namespace plumb::kernels
