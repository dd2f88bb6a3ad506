// `plumb serve [MODEL_DIR]`: the OpenAI-compatible server. Without MODEL_DIR it serves the built-in tiny model.
// It listens at once (liveness on /health, 503 "loading" elsewhere), loads the model with progress, then serves
// until SIGINT or SIGTERM: new requests get 503, requests in flight finish within --shutdown-grace (the rest are
// cancelled), and it exits 0. On a terminal one live line shows streams, queue and tokens per second.
#include <pthread.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "base/error.h"
#include "base/version.h"
#include "cli/command.h"
#include "engine/engine.h"
#include "model/dsv4/builtin_model.h"
#include "model/open_model.h"
#include "server/api_server.h"
#include "server/dsv4_text.h"
#include "server/serve_status.h"

namespace {

using namespace plumb;

struct ServeArgs {
  std::string model_dir;
  std::string served_name;
  server::HttpOptions http;
  int max_body_mb = 8;
  model::ModelOptions model;
  int32_t parallel = 4;
  int32_t max_queue = 1024;
  int32_t prefill_chunk = 32;
  int32_t mtp_drafts = 3;
  bool no_drafts = false;
  double prompt_cache_gib = 1.0;
  std::string spill_dir;
  double spill_gib = 8.0;
  double shutdown_grace_s = 10;
};

// SIGINT and SIGTERM are blocked in every thread (set before any thread starts) and taken here by sigwait.
class ShutdownSignal {
 public:
  ShutdownSignal() {
    sigemptyset(&set_);
    sigaddset(&set_, SIGINT);
    sigaddset(&set_, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set_, nullptr);
  }
  // Before the model is loaded there is nothing to finish: a signal then ends the process at once.
  void start_waiter() {
    std::thread([this] {
      int sig = 0;
      sigwait(&set_, &sig);
      std::unique_lock lock(mutex_);
      if (!serving_) {
        spdlog::info("{}: stopping while the model loads", sig == SIGINT ? "SIGINT" : "SIGTERM");
        std::_Exit(0);
      }
      received_ = sig;
      signalled_.notify_all();
    }).detach();
  }
  void serving() {
    std::lock_guard lock(mutex_);
    serving_ = true;
  }
  int wait() {
    std::unique_lock lock(mutex_);
    signalled_.wait(lock, [&] { return received_ != 0; });
    return received_;
  }

 private:
  sigset_t set_;
  std::mutex mutex_;
  std::condition_variable signalled_;
  bool serving_ = false;
  int received_ = 0;
};

int serve(ServeArgs a) {
  if (a.max_body_mb < 1 || a.max_body_mb > 1024) fail("--max-body-mb must be between 1 and 1024, got {}", a.max_body_mb);
  if (a.http.threads < 1) fail("--http-threads must be at least 1, got {}", a.http.threads);
  ShutdownSignal signals;
  signals.start_waiter();
  const std::filesystem::path dir = a.model_dir.empty() ? dsv4::builtin_model_dir() : std::filesystem::path(a.model_dir);
  std::filesystem::path folder = std::filesystem::weakly_canonical(dir);
  if (folder.filename().empty()) folder = folder.parent_path();
  if (a.http.api_key.empty())
    if (const char* env = std::getenv("PLUMB_API_KEY"); env && *env) a.http.api_key = env;
  a.http.max_body_bytes = size_t(a.max_body_mb) << 20;

  server::ServeStatus status(isatty(STDERR_FILENO) != 0);
  server::ApiServer api(a.http, a.served_name.empty() ? folder.filename().string() : a.served_name);
  const int port = api.start();
  const std::string address = fmt::format("http://{}:{}", a.http.host, port);
  spdlog::info("listening on {} (loading {})", address, folder.string());

  a.model.slots = a.parallel;
  auto opened = model::open_model(folder, a.model, [&](int64_t done, int64_t total, const std::string& what) {
    status.loading(done, total, what);
  });
  auto text = server::Dsv4Text::from_file(opened.tokenizer_json);
  engine::EngineConfig config;
  config.parallel = a.parallel;
  config.max_waiting = a.max_queue;
  config.prefill_chunk = a.prefill_chunk;
  config.max_drafts = a.no_drafts ? 0 : a.mtp_drafts;
  config.eos_token_ids = opened.eos_token_ids;
  config.cache.budget_bytes = int64_t(a.prompt_cache_gib * double(int64_t(1) << 30));
  if (!a.spill_dir.empty()) {
    config.cache.spill_dir = a.spill_dir;
    config.cache.spill_budget_bytes = int64_t(a.spill_gib * double(int64_t(1) << 30));
  }
  // Spilled states may only come back into the same model, backend, numerics, build and state layout.
  config.cache.namespace_key = fmt::format("{}|backend {}|numerics {}|build {}|rows {}|context {}",
                                           model::model_fingerprint(folder), opened.backend, a.model.numerics,
                                           git_commit(), a.model.max_rows_per_slot, opened.model->info().max_context);
  engine::Engine engine(*opened.model, config, text->text_streams());
  engine.start();

  const auto& info = opened.model->info();
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  const std::string id = a.served_name.empty() ? opened.name : a.served_name;
  api.serve_model({id, std::chrono::duration_cast<std::chrono::seconds>(now).count(), info.max_context, &engine,
                   text.get()});
  signals.serving();
  spdlog::info("serving {} on {} ({} backend, {} slots, context {}{})", id, address, opened.backend, a.parallel,
               info.max_context, a.http.api_key.empty() ? "" : ", API key required");
  status.start(api.context(), address);

  const int sig = signals.wait();
  status.stop();
  spdlog::info("{}: shutting down ({} request(s) in flight, grace {} s)", sig == SIGINT ? "SIGINT" : "SIGTERM",
               api.context().requests_in_flight(), a.shutdown_grace_s);
  api.shutdown(std::chrono::milliseconds(int64_t(a.shutdown_grace_s * 1000)));
  engine.stop();
  spdlog::info("stopped");
  return 0;
}

const plumb::cli::RegisterCommand reg("serve", "serve a model over an OpenAI-compatible HTTP API", [](CLI::App& app) {
  auto a = std::make_shared<ServeArgs>();
  app.add_option("model_dir", a->model_dir, "checkpoint folder (default: the built-in tiny model)");
  app.add_option("--host", a->http.host, "address to listen on")->capture_default_str();
  app.add_option("--port", a->http.port, "port (0: any free port, printed at start)")->capture_default_str();
  app.add_option("--api-key", a->http.api_key, "require 'Authorization: Bearer KEY' (also $PLUMB_API_KEY)");
  app.add_option("--served-model-name", a->served_name, "model id clients use (default: the folder name)");
  app.add_option("--parallel,-P", a->parallel, "requests generating at once (slots)")->capture_default_str();
  app.add_option("--max-queue", a->max_queue, "requests waiting for a slot before 503")->capture_default_str();
  app.add_option("--ctx-size", a->model.max_context, "context length (0: the model's)")->capture_default_str();
  app.add_option("--prefill-chunk", a->prefill_chunk, "most prompt tokens a request adds per round")
      ->capture_default_str();
  app.add_option("--mtp-drafts", a->mtp_drafts, "most draft tokens per stream per round (0: off)")
      ->capture_default_str();
  app.add_flag("--no-drafts", a->no_drafts, "no speculative drafts (the tokens are the same)");
  app.add_option("--prompt-cache-gib", a->prompt_cache_gib, "kept prompt states, GiB of host memory (0: off)")
      ->capture_default_str();
  app.add_option("--spill-dir", a->spill_dir, "evicted prompt states go to files here and come back from them");
  app.add_option("--spill-gib", a->spill_gib, "disk budget of --spill-dir in GiB")->capture_default_str();
  app.add_option("--backend", a->model.backend, "cpu, cuda or auto")->capture_default_str();
  app.add_option("--max-body-mb", a->max_body_mb, "largest request body in MiB (413 beyond)")->capture_default_str();
  app.add_option("--http-threads", a->http.threads, "connections served at once")->capture_default_str();
  app.add_option("--shutdown-grace", a->shutdown_grace_s, "seconds requests in flight get to finish on SIGTERM")
      ->capture_default_str();
  return [a] { return serve(*a); };
});

}  // namespace
