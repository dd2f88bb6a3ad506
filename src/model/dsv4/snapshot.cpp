// Canonical slot snapshots: a header (magic, format version, element size, a fingerprint of the model's shapes,
// position, MTP position, payload size) and the state rows the slot logically holds at its position, in a fixed
// order: per block the window rows of the last W - 1 positions, the compressor tokens of the current group (and for
// CSA the previous one), the compressed rows, likewise for the indexer; the MTP block's rows below its MTP position;
// the final streams of the last position. Rows left behind by rejected drafts are never included, so a slot that
// drafted and rewound snapshots to the same bytes as one that never drafted.
#include <cstring>
#include <numeric>

#include "base/error.h"
#include "base/sha256.h"
#include "model/dsv4/dsv4_model.h"

namespace plumb::dsv4 {
namespace {

constexpr char kMagic[8] = {'P', 'L', 'U', 'M', 'B', 'D', 'S', '4'};
constexpr uint32_t kFormatVersion = 1;

struct Header {
  char magic[8];
  uint32_t version;
  uint32_t element_bytes;
  uint64_t fingerprint;
  int64_t position;
  int64_t mtp_position;
  uint64_t payload_bytes;
};

std::vector<int64_t> iota(int64_t n) {
  std::vector<int64_t> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), int64_t(0));
  return v;
}

}  // namespace

uint64_t Dsv4Model::shape_fingerprint() const {
  std::string shape = fmt::format("dsv4 hidden={} hc={} heads={} head_dim={} rope={} window={} index={}x{} numerics={}",
                                  config_.hidden_size, config_.hc_mult, config_.num_heads, config_.head_dim,
                                  config_.rope_head_dim, config_.sliding_window, config_.index_n_heads,
                                  config_.index_head_dim, kernels::numerics_name(backend_->numerics()));
  for (const BlockSpec& b : config_.blocks) shape += fmt::format(" {}:{}", attention_kind_name(b.attention), b.compress_ratio);
  const Sha256Digest digest = sha256(shape.data(), shape.size());
  uint64_t v = 0;
  std::memcpy(&v, digest.data(), sizeof v);
  return v;
}

std::vector<Dsv4Model::Section> Dsv4Model::snapshot_sections(int32_t slot, int64_t position,
                                                             int64_t mtp_position) const {
  std::vector<Section> out;
  auto range = [](int64_t begin, int64_t end, auto&& row_of) {
    std::vector<int64_t> rows;
    for (int64_t p = std::max<int64_t>(begin, 0); p < end; ++p) rows.push_back(row_of(p));
    return rows;
  };
  for (int64_t b = 0; b < config_.num_blocks(); ++b) {
    const BlockSpec& spec = config_.blocks[size_t(b)];
    const BlockState& st = state_->block(b);
    const int64_t pos = spec.mtp ? mtp_position : position;
    out.push_back({&st.window, range(pos - config_.sliding_window + 1, pos,
                                     [&](int64_t p) { return state_->window_row(slot, p); })});
    if (spec.compress_ratio == 0) continue;
    const int64_t r = spec.compress_ratio, groups = pos / r;
    const bool csa = spec.attention == AttentionKind::csa;
    // Tokens still to be pooled: the current group's, and for CSA the previous group's first halves.
    const auto tokens = range((groups - (csa ? 1 : 0)) * r, pos, [&](int64_t p) { return state_->compressor_row(slot, p, r); });
    const auto rows = range(0, groups, [&](int64_t j) { return state_->compressed_row(slot, j, r); });
    for (const CompressorState* c : {&st.compressor, csa ? &st.indexer : nullptr}) {
      if (!c) continue;
      out.push_back({&c->kv, tokens});
      out.push_back({&c->score, tokens});
      out.push_back({&c->rows, rows});
    }
  }
  out.push_back({&state_->x_ring(), position > 0 ? std::vector<int64_t>{state_->x_row(slot, position - 1)}
                                                 : std::vector<int64_t>{}});
  return out;
}

model::SlotSnapshot Dsv4Model::snapshot(int32_t slot) const {
  check_slot(slot, "snapshot");
  const SlotMeta& meta = state_->meta(slot);
  PLUMB_CHECK(meta.position == 0 || state_->has_x(slot, meta.position - 1));
  const auto sections = snapshot_sections(slot, meta.position, meta.mtp_position);
  const size_t element = dtype_size(backend_->act_dtype());
  uint64_t payload = 0;
  for (const Section& s : sections) payload += s.rows.size() * size_t(s.tensor->cols) * element;

  model::SlotSnapshot snap;
  snap.position = meta.position;
  snap.bytes.resize(sizeof(Header) + payload);
  Header h{};
  std::memcpy(h.magic, kMagic, sizeof kMagic);
  h.version = kFormatVersion;
  h.element_bytes = uint32_t(element);
  h.fingerprint = shape_fingerprint();
  h.position = meta.position;
  h.mtp_position = meta.mtp_position;
  h.payload_bytes = payload;
  std::memcpy(snap.bytes.data(), &h, sizeof h);
  size_t at = sizeof(Header);
  for (const Section& s : sections) {
    if (s.rows.empty()) continue;
    Workspace ws(forward_->scratch());
    const kernels::Tensor rows = ws.act(int64_t(s.rows.size()), s.tensor->cols);
    backend_->copy_rows(*s.tensor, s.rows, rows, iota(rows.rows));
    backend_->download(rows, snap.bytes.data() + at);
    at += s.rows.size() * size_t(s.tensor->cols) * element;
  }
  return snap;
}

void Dsv4Model::restore(int32_t slot, const model::SlotSnapshot& snap) {
  check_slot(slot, "restore");
  Header h{};
  if (snap.bytes.size() < sizeof h) fail("restore: snapshot of {} bytes is too short for its header", snap.bytes.size());
  std::memcpy(&h, snap.bytes.data(), sizeof h);
  if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0) fail("restore: not a plumb DeepSeek-V4 slot snapshot");
  if (h.version != kFormatVersion)
    fail("restore: snapshot format version {}, this build reads version {}", h.version, kFormatVersion);
  const size_t element = dtype_size(backend_->act_dtype());
  if (h.element_bytes != element || h.fingerprint != shape_fingerprint())
    fail("restore: the snapshot was taken from a model of another shape or numerics (this one runs {} numerics)",
         kernels::numerics_name(backend_->numerics()));
  if (h.position < 0 || h.position > info_.max_context || h.mtp_position < 0 || h.mtp_position > h.position ||
      h.position != snap.position)
    fail("restore: snapshot positions {} (MTP {}) do not fit this model (max_context {})", h.position,
         h.mtp_position, info_.max_context);
  const auto sections = snapshot_sections(slot, h.position, h.mtp_position);
  uint64_t payload = 0;
  for (const Section& s : sections) payload += s.rows.size() * size_t(s.tensor->cols) * element;
  if (h.payload_bytes != payload || snap.bytes.size() != sizeof h + payload)
    fail("restore: snapshot payload is {} bytes, the layout needs {}", snap.bytes.size() - sizeof h, payload);

  size_t at = sizeof(Header);
  for (const Section& s : sections) {
    if (s.rows.empty()) continue;
    Workspace ws(forward_->scratch());
    const kernels::Tensor rows = ws.act(int64_t(s.rows.size()), s.tensor->cols);
    backend_->upload(snap.bytes.data() + at, rows);
    backend_->copy_rows(rows, iota(rows.rows), *s.tensor, s.rows);
    at += s.rows.size() * size_t(s.tensor->cols) * element;
  }
  state_->reset(slot);
  SlotMeta& m = state_->meta(slot);
  m.position = m.rewind_floor = h.position;
  m.mtp_position = h.mtp_position;
  if (h.position > 0) m.x_tag[size_t((h.position - 1) % state_->shape().x_ring_rows())] = h.position - 1;
}

}  // namespace plumb::dsv4
