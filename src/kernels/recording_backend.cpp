// The recording decorator: an observer (observed_backend.h) that downloads the tensors each op wrote.
#include "kernels/recording_backend.h"

#include <cstdio>
#include <fstream>

#include "base/error.h"
#include "kernels/observed_backend.h"

namespace plumb::kernels {
namespace {

// Downloads each output an op wrote as "op.output" float32 rows (index tensors converted).
class Recorder final : public OpObserver {
 public:
  explicit Recorder(std::vector<OpRecord>* sink) : sink_(sink) {}

  void end(Backend& inner, const char* op, std::initializer_list<OpOutput> outputs) override {
    for (const OpOutput& o : outputs) {
      if (!o.tensor) continue;  // an optional output the call did not ask for
      const Tensor& t = *o.tensor;
      OpRecord r{std::string(op) + "." + o.name, t.rows, t.cols, std::vector<float>(size_t(t.rows * t.cols))};
      if (t.dtype == DType::dtype_i32) {
        std::vector<int32_t> ids(r.values.size());
        inner.download(t, ids.data());
        for (size_t i = 0; i < ids.size(); ++i) r.values[i] = float(ids[i]);
      } else {
        inner.download_f32(t, r.values.data());
      }
      sink_->push_back(std::move(r));
    }
  }

 private:
  std::vector<OpRecord>* sink_;
};

}  // namespace

std::unique_ptr<Backend> make_recording_backend(std::unique_ptr<Backend> inner, std::vector<OpRecord>* sink) {
  return make_observed_backend(std::move(inner), std::make_unique<Recorder>(sink));
}

void write_op_records(const std::string& path, const std::vector<OpRecord>& records) {
  std::ofstream out(path, std::ios::binary);
  const uint64_t count = records.size();
  out.write(reinterpret_cast<const char*>(&count), 8);
  for (const OpRecord& r : records) {
    const uint32_t length = uint32_t(r.op.size());
    const uint64_t rows = uint64_t(r.rows), cols = uint64_t(r.cols);
    out.write(reinterpret_cast<const char*>(&length), 4);
    out.write(r.op.data(), length);
    out.write(reinterpret_cast<const char*>(&rows), 8);
    out.write(reinterpret_cast<const char*>(&cols), 8);
    out.write(reinterpret_cast<const char*>(r.values.data()), std::streamsize(r.values.size() * sizeof(float)));
  }
  if (!out) fail("{}: cannot write", path);
}

}  // namespace plumb::kernels
