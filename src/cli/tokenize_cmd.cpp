// `plumb tokenize MODEL TEXT`: the ids and token pieces of a text, for people debugging prompts.
// MODEL is a checkpoint folder holding tokenizer.json, or the tokenizer.json itself; TEXT "-" reads stdin.
//   --ids 1,2,3     decode ids instead (pieces, then the text)
//   --no-special    encode special-token strings (BOS, EOS, ...) as plain text
//   --bench FILE    encode FILE --repeat times on one thread (in one call, or in calls of --chunk-bytes cut
//                   after a newline) and print the best speed as JSON (the plumb side of tools/bench-tokenizer.sh)
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "base/error.h"
#include "base/sha256.h"
#include "cli/command.h"
#include "text/tokenizer.h"
#include "text/utf8.h"

namespace {

using plumb::text::TokenId;
using plumb::text::Tokenizer;

// Bytes shown readably: whole characters as they are, control characters and bytes that are not (or not
// yet) a character escaped.
std::string shown(std::string_view bytes) {
  std::string out = "\"";
  size_t pos = 0;
  while (pos < bytes.size()) {
    const auto step = plumb::text::utf8_step(bytes, pos);
    const auto b = static_cast<unsigned char>(bytes[pos]);
    if (step.kind == plumb::text::Utf8Step::complete && step.length > 1) {
      out.append(bytes.substr(pos, step.length));
      pos += step.length;
      continue;
    }
    if (b == '\n') out += "\\n";
    else if (b == '\t') out += "\\t";
    else if (b == '\r') out += "\\r";
    else if (b == '"') out += "\\\"";
    else if (b == '\\') out += "\\\\";
    else if (b < 0x20 || b >= 0x7F) out += fmt::format("\\x{:02X}", b);
    else out += char(b);
    ++pos;
  }
  return out + "\"";
}

void print_pieces(const Tokenizer& tokenizer, const std::vector<TokenId>& ids) {
  for (const TokenId id : ids) {
    const char* mark = tokenizer.is_special(id) ? "  (special)" : tokenizer.is_added(id) ? "  (added)" : "";
    std::printf("%8d  %s%s\n", id, shown(tokenizer.token_bytes(id)).c_str(), mark);
  }
}

std::vector<TokenId> parse_ids(const std::string& list) {
  std::vector<TokenId> ids;
  std::stringstream in(list);
  std::string item;
  while (std::getline(in, item, ',')) {
    size_t used = 0;
    long long value = 0;
    try {
      value = std::stoll(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != item.size() || value < 0 || value > INT32_MAX)
      plumb::fail("--ids: {:?} is not a token id (give ids as 1,2,3)", item);
    ids.push_back(TokenId(value));
  }
  return ids;
}

std::string read_all(std::istream& in) {
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The text cut into pieces of about chunk_bytes, each ending after a newline (the whole text when 0).
std::vector<std::string_view> chunks_of(std::string_view text, size_t chunk_bytes) {
  if (chunk_bytes == 0) return {text};
  std::vector<std::string_view> chunks;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = std::min(text.size(), start + chunk_bytes);
    const size_t newline = text.find('\n', end);
    end = newline == std::string_view::npos ? text.size() : newline + 1;
    chunks.push_back(text.substr(start, end - start));
    start = end;
  }
  return chunks;
}

int bench(const Tokenizer& tokenizer, const std::string& path, int repeat, size_t chunk_bytes, bool allow_special) {
  std::ifstream in(path, std::ios::binary);
  if (!in) plumb::fail("--bench: cannot open {}", path);
  const std::string text = read_all(in);
  const auto chunks = chunks_of(text, chunk_bytes);
  std::vector<TokenId> ids;
  auto encode_all = [&] {
    ids.clear();
    for (const auto chunk : chunks) {
      const auto part = tokenizer.encode(chunk, allow_special);
      ids.insert(ids.end(), part.begin(), part.end());
    }
  };
  encode_all();  // warm-up
  double best = 1e30;
  for (int i = 0; i < repeat; ++i) {
    const auto start = std::chrono::steady_clock::now();
    encode_all();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::printf(
      "{\"impl\": \"plumb\", \"mode\": \"encode, one thread, %zu calls of ~%zu bytes, best of %d\", \"bytes\": %zu, "
      "\"tokens\": %zu, \"seconds\": %.6f, \"mb_per_s\": %.3f, \"token_sha256\": \"%s\"}\n",
      chunks.size(), chunk_bytes ? chunk_bytes : text.size(), repeat, text.size(), ids.size(), best,
      double(text.size()) / 1e6 / best, plumb::token_sha256(ids).c_str());
  return 0;
}

struct Options {
  std::string model, text, ids, bench_file;
  bool no_special = false;
  int repeat = 5;
  size_t chunk_bytes = 0;
};

const plumb::cli::RegisterCommand reg("tokenize", "show the tokens of a text, or the text of token ids",
                                      [](CLI::App& app) {
  auto options = std::make_shared<Options>();
  app.add_option("model", options->model, "checkpoint folder with tokenizer.json, or a tokenizer.json")->required();
  app.add_option("text", options->text, "text to encode (\"-\" reads standard input)");
  app.add_option("--ids", options->ids, "comma-separated ids to decode instead");
  app.add_flag("--no-special", options->no_special, "encode special-token strings as plain text");
  app.add_option("--bench", options->bench_file, "encode this file repeatedly and print the speed as JSON");
  app.add_option("--repeat", options->repeat, "timed runs for --bench (the best is reported)")->check(CLI::PositiveNumber);
  app.add_option("--chunk-bytes", options->chunk_bytes, "--bench: encode in calls of about this many bytes (0: one call)");
  return [options] {
    const Tokenizer tokenizer = Tokenizer::from_file(options->model);
    if (!options->bench_file.empty())
      return bench(tokenizer, options->bench_file, options->repeat, options->chunk_bytes, !options->no_special);
    if (!options->ids.empty()) {
      const auto ids = parse_ids(options->ids);
      print_pieces(tokenizer, ids);
      const std::string text = tokenizer.decode(ids);
      std::printf("decoded (%zu bytes): %s\n", text.size(), shown(text).c_str());
      return 0;
    }
    const std::string text = options->text == "-" ? read_all(std::cin) : options->text;
    const auto ids = tokenizer.encode(text, !options->no_special);
    std::printf("%zu tokens\n[", ids.size());
    for (size_t i = 0; i < ids.size(); ++i) std::printf(i ? ", %d" : "%d", ids[i]);
    std::printf("]\n");
    print_pieces(tokenizer, ids);
    return 0;
  };
});

}  // namespace
