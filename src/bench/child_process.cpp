#include "bench/child_process.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "base/error.h"

extern char** environ;

namespace plumb::bench {
namespace {

constexpr auto kPollInterval = std::chrono::milliseconds(20);

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace

int exit_code(int wait_status) {
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return 255;
}

ChildProcess::ChildProcess(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env,
                           const std::string& log_path) {
  PLUMB_CHECK(!argv.empty());
  // Orphans of the group (a shell's children whose shell already exited) become ours to reap, so none is left
  // a zombie that keeps the group looking alive.
  prctl(PR_SET_CHILD_SUBREAPER, 1);

  std::vector<std::string> args = argv;
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) env.emplace_back(*e);
  env.insert(env.end(), extra_env.begin(), extra_env.end());
  auto c_args = c_strings(args);
  auto c_env = c_strings(env);

  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attr);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  const int err = posix_spawnp(&pid_, c_args[0], &actions, &attr, c_args.data(), c_env.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (err != 0) fail("cannot start {}: {}", argv[0], std::strerror(err));
}

ChildProcess::~ChildProcess() {
  if (!finished_) stop(5.0);
}

bool ChildProcess::running() {
  reap_group();
  return !exited_;
}

int ChildProcess::wait() {
  wait_leader();
  reap_group();
  finished_ = !group_alive();
  return status_;
}

void ChildProcess::wait_leader() {
  while (!exited_) {
    int status = 0;
    const pid_t w = waitpid(pid_, &status, 0);
    if (w == pid_) {
      exited_ = true;
      status_ = exit_code(status);
    } else if (w < 0 && errno != EINTR) {
      // No longer ours to wait for (reaped elsewhere): report it as lost.
      exited_ = true;
      status_ = 255;
    }
  }
}

int ChildProcess::stop(double grace_s) {
  kill(-pid_, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(grace_s);
  for (;;) {
    reap_group();
    if (exited_ && !group_alive()) break;
    if (std::chrono::steady_clock::now() >= deadline) {
      kill(-pid_, SIGKILL);
      wait_leader();
      reap_group();
      break;
    }
    std::this_thread::sleep_for(kPollInterval);
  }
  finished_ = true;
  return status_;
}

void ChildProcess::reap_group() {
  int status = 0;
  pid_t w;
  while ((w = waitpid(-pid_, &status, WNOHANG)) > 0) {
    if (w == pid_) {
      exited_ = true;
      status_ = exit_code(status);
    }
  }
}

bool ChildProcess::group_alive() const { return kill(-pid_, 0) == 0 || errno != ESRCH; }

int free_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) fail("socket: {}", std::strerror(errno));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof(addr);
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    const int e = errno;
    close(fd);
    fail("finding a free port: {}", std::strerror(e));
  }
  close(fd);
  return ntohs(addr.sin_port);
}

}  // namespace plumb::bench
