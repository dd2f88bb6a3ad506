// Release lightning indexer (dsv4-forward.md sections 7.5, 10.3 item 6): per head q . I in float32 rounded to bf16,
// relu, times the head weight rounded to bf16, float32 sum over heads in head order rounded to bf16; top-k of the
// bf16 scores with plumb's tie rule (kernels/topk.h).
#include <algorithm>
#include <vector>

#include "base/error.h"
#include "kernels/control.h"
#include "kernels/cpu/cpu_backend.h"
#include "kernels/cpu/release_math.h"
#include "kernels/parallel.h"
#include "kernels/topk.h"

namespace plumb::kernels::cpu {
namespace {

const ControlId kReluDropped = register_control("indexer", "relu_dropped", "head logits are summed without the relu");
const ControlId kSeesNextRow = register_control("indexer", "sees_next_row", "one index row past the visible ones is scored");
const ControlId kNeighbourWeights = register_control("indexer", "rows_read_neighbour_weights",
                                                     "each row weights its heads with the previous launch row's weights");

}  // namespace

void CpuBackend::indexer_topk(IndexerParams p, const Tensor& q, const Tensor& w, const Tensor& index_rows,
                              std::span<const TokenRow> rows, const Tensor& selected, const Tensor* margin) {
  PLUMB_CHECK(q.dtype == DType::dtype_f32 && q.cols == p.heads * p.head_dim && w.cols == p.heads);
  PLUMB_CHECK(index_rows.cols == p.head_dim && selected.dtype == DType::dtype_i32 && selected.cols == p.topk);
  PLUMB_CHECK(int64_t(rows.size()) == q.rows);
  const ControlId plant = planted_control();
  parallel_chunks(q.rows, 1, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      int64_t visible = (rows[size_t(r)].position + 1) / p.ratio;
      PLUMB_CHECK(visible <= p.rows_per_slot);
      if (plant == kSeesNextRow) visible = std::min(visible + 1, p.rows_per_slot);
      std::vector<float> score(static_cast<size_t>(visible));
      const float* query = q.row<float>(r);
      const float* head_weight = w.row<float>(plant == kNeighbourWeights && r > 0 ? r - 1 : r);
      for (int64_t t = 0; t < visible; ++t) {
        const float* key = index_rows.row<float>(rows[size_t(r)].slot * p.rows_per_slot + t);
        float total = 0.0f;
        for (int64_t h = 0; h < p.heads; ++h) {
          const float logit = bf16(dot_f32(query + h * p.head_dim, key, p.head_dim));
          total += bf16((plant == kReluDropped ? logit : std::max(logit, 0.0f)) * head_weight[h]);
        }
        score[size_t(t)] = bf16(total);
      }
      const TopK<float> top = top_k(std::span<const float>(score), p.topk);
      int32_t* out = selected.row<int32_t>(r);
      for (int64_t i = 0; i < p.topk; ++i) out[i] = i < int64_t(top.order.size()) ? int32_t(top.order[size_t(i)]) : -1;
      if (margin) margin->row<float>(r)[0] = float(top.margin);
    }
  });
}

}  // namespace plumb::kernels::cpu
