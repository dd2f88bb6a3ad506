// `plumb run [MODEL_DIR]`: generate from the terminal, one request alone in the engine. Without MODEL_DIR it uses
// the built-in tiny model. The prompt is raw text (--prompt, special-token text included), one user message
// through the chat encoding (--chat), token ids (--ids), or a whole OpenAI request body (--request FILE, "-" for
// stdin; chat when it has "messages"), built exactly as the server builds it. --json prints the ids and their
// token_sha256, which the server's reply to the same request must equal.
#include <spdlog/spdlog.h>

#include <cstdio>
#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>

#include "base/error.h"
#include "cli/command.h"
#include "engine/engine.h"
#include "model/dsv4/builtin_model.h"
#include "model/open_model.h"
#include "server/api_error.h"
#include "server/dsv4_text.h"
#include "server/generation.h"
#include "server/openai_request.h"
#include "server/request_prompt.h"

namespace {

using namespace plumb;
using json = nlohmann::ordered_json;

struct RunArgs {
  std::string model_dir, prompt, chat, ids, request;
  int32_t max_tokens = 64;
  double temperature = 1.0, top_p = 1.0, min_p = 0.0;
  int32_t top_k = 0;
  int64_t seed = -1;
  bool has_seed = false, ignore_eos = false, no_draft = false, thinking = false, json_out = false, stats = false;
  int32_t mtp_drafts = 3;
  model::ModelOptions model;
};

std::string read_all(const std::string& path) {
  if (path == "-") {
    std::stringstream ss;
    ss << std::cin.rdbuf();
    return ss.str();
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("{}: cannot read the request file", path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The request as the server would build it: its fields and prompt ids.
struct Prepared {
  server::GenerationFields fields;
  std::vector<int32_t> prompt;
};

Prepared prepare(const RunArgs& a, const server::ModelText& text) {
  Prepared p;
  if (!a.request.empty()) {
    const json body = json::parse(read_all(a.request));
    if (body.contains("messages")) {
      const auto req = server::parse_chat_request(body);
      p.fields = req.gen;
      p.prompt = server::chat_prompt_ids(text, req);
    } else {
      const auto req = server::parse_completion_request(body);
      p.fields = req.gen;
      p.prompt = server::completion_prompt_ids(text, req);
    }
    return p;
  }
  p.fields.max_tokens = a.max_tokens;
  p.fields.sampling.temperature = a.temperature;
  p.fields.sampling.top_p = a.top_p;
  p.fields.sampling.top_k = a.top_k;
  p.fields.sampling.min_p = a.min_p;
  if (a.has_seed) p.fields.sampling.seed = uint64_t(a.seed);
  p.fields.ignore_eos = a.ignore_eos;
  p.fields.draft = !a.no_draft;
  const int given = int(!a.prompt.empty()) + int(!a.chat.empty()) + int(!a.ids.empty());
  if (given != 1) fail("give exactly one of --prompt, --chat, --ids or --request");
  if (!a.chat.empty()) {
    server::ChatRequest req;
    req.messages = json::array({{{"role", "user"}, {"content", a.chat}}});
    req.thinking = a.thinking;
    p.prompt = server::chat_prompt_ids(text, req);
  } else if (!a.prompt.empty()) {
    p.prompt = text.encode(a.prompt);
  } else {
    std::stringstream in(a.ids);
    std::string item;
    while (std::getline(in, item, ',')) p.prompt.push_back(int32_t(std::stol(item)));
  }
  return p;
}

int run(const RunArgs& a) {
  const std::filesystem::path dir = a.model_dir.empty() ? dsv4::builtin_model_dir() : std::filesystem::path(a.model_dir);
  model::ModelOptions options = a.model;
  options.slots = 1;
  auto opened = model::open_model(dir, options);
  auto text = server::Dsv4Text::from_file(opened.tokenizer_json);
  engine::EngineConfig config;
  config.parallel = 1;
  config.max_drafts = a.mtp_drafts;
  config.eos_token_ids = opened.eos_token_ids;
  engine::Engine engine(*opened.model, config, text->text_streams());
  const server::ServedModel served{opened.name, 0, opened.model->info().max_context, &engine, text.get()};

  Prepared p;
  engine::GenerationRequest request;
  try {
    p = prepare(a, *text);
    request = server::make_engine_request(p.fields, p.prompt, served, "prompt");
  } catch (const server::ApiError& e) {
    fail("{}{}", e.what(), e.param.empty() ? "" : " (field " + e.param + ")");
  }
  const auto started = std::chrono::steady_clock::now();
  auto handle = engine.submit(std::move(request));
  engine::RequestEvent all;
  for (;;) {
    engine.step();
    while (auto ev = handle->next_event(std::chrono::milliseconds(0))) {
      if (!a.json_out) {
        std::fputs(ev->text.c_str(), stdout);
        std::fflush(stdout);
      }
      for (auto& t : ev->tokens) all.tokens.push_back(t);
      all.text += ev->text;
      if (ev->finished) {
        all.reason = ev->reason;
        all.error = ev->error;
        all.stats = ev->stats;
        all.finished = true;
      }
    }
    if (all.finished) break;
  }
  if (all.reason == engine::FinishReason::finish_error) fail("generation failed: {}", all.error);
  const auto& st = all.stats;
  if (a.stats) {
    const double seconds = std::chrono::duration<double>(st.finished - started).count();
    std::string by_depth;
    for (size_t d = 0; d < st.accepted_by_depth.size(); ++d) by_depth += fmt::format(" {}:{}", d + 1, st.accepted_by_depth[d]);
    std::fprintf(stderr,
                 "\n[stats] prompt %d tokens, generated %d in %.3f s (%.1f tok/s), finish %s\n"
                 "[stats] drafts proposed %lld, accepted %lld (%.1f%%), accepted by depth:%s\n",
                 st.prompt_tokens, st.completion_tokens, seconds, seconds > 0 ? st.completion_tokens / seconds : 0.0,
                 std::string(engine::finish_reason_name(all.reason)).c_str(), (long long)st.drafts_proposed,
                 (long long)st.drafts_accepted,
                 st.drafts_proposed ? 100.0 * double(st.drafts_accepted) / double(st.drafts_proposed) : 0.0,
                 by_depth.empty() ? " none" : by_depth.c_str());
  }
  if (!a.json_out) {
    std::printf("\n");
    return 0;
  }
  json out = {{"model", opened.name},
              {"backend", opened.backend},
              {"prompt_tokens", p.prompt.size()},
              {"token_ids", json::array()},
              {"token_sha256", all.stats.token_sha256},
              {"seed", all.stats.seed},
              {"finish_reason", std::string(engine::finish_reason_name(all.reason))},
              {"drafts", {{"proposed", st.drafts_proposed}, {"accepted", st.drafts_accepted},
                          {"accepted_by_depth", st.accepted_by_depth}}},
              {"text", all.text}};
  for (const auto& t : all.tokens) out["token_ids"].push_back(t.id);
  std::printf("%s\n", out.dump(-1, ' ', false, json::error_handler_t::replace).c_str());
  return 0;
}

const plumb::cli::RegisterCommand reg("run", "generate from the terminal (one request, alone)", [](CLI::App& app) {
  auto a = std::make_shared<RunArgs>();
  app.add_option("model_dir", a->model_dir, "checkpoint folder (default: the built-in tiny model)");
  app.add_option("--prompt,-p", a->prompt, "prompt text (special-token text becomes the special token)");
  app.add_option("--chat,-c", a->chat, "one user message, rendered with the chat encoding");
  app.add_option("--ids", a->ids, "prompt token ids, comma-separated");
  app.add_option("--request", a->request, "an OpenAI request body (file, or - for stdin); it carries its own settings");
  app.add_option("-n,--max-tokens", a->max_tokens, "tokens to generate at most")->capture_default_str();
  app.add_option("--temperature,-t", a->temperature, "0: greedy")->capture_default_str();
  app.add_option("--top-p", a->top_p)->capture_default_str();
  app.add_option("--top-k", a->top_k, "0: off")->capture_default_str();
  app.add_option("--min-p", a->min_p)->capture_default_str();
  app.add_option("--seed", a->seed, "sampling seed (default: derived from the prompt)")->each([a](const std::string&) {
    a->has_seed = true;
  });
  app.add_flag("--ignore-eos", a->ignore_eos, "generate past end-of-sentence up to --max-tokens");
  app.add_flag("--no-draft", a->no_draft, "no speculative drafts (the tokens are the same)");
  app.add_flag("--thinking", a->thinking, "with --chat: thinking mode");
  app.add_option("--ctx-size", a->model.max_context, "context length (0: the model's)")->capture_default_str();
  app.add_option("--backend", a->model.backend, "cpu, cuda or auto")->capture_default_str();
  app.add_flag("--json", a->json_out, "print {token_ids, token_sha256, text, ...} instead of the text");
  app.add_flag("--stats", a->stats, "print speed and draft acceptance (proposed, accepted, by depth) to stderr");
  app.add_option("--mtp-drafts", a->mtp_drafts, "most draft tokens per round (0: off)")->capture_default_str();
  return [a] { return run(*a); };
});

}  // namespace
