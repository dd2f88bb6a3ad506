// A child process in its own process group, its output in a log file: how `bench ab` starts each arm's server
// (a shell command) and each bench run. Stopping sends SIGTERM to the whole group, so a server started through
// `sh -c` (or a script that forks) stops with its shell; whatever is still there after the grace period gets
// SIGKILL. The destructor stops a child that is still running.
#pragma once

#include <sys/types.h>

#include <string>
#include <utility>
#include <vector>

namespace plumb::bench {

class ChildProcess {
 public:
  // Starts argv[0] (searched in PATH) with `extra_env` ("NAME=value") added to this process's environment,
  // stdin from /dev/null and stdout and stderr to `log_path`. Throws plumb::Error when it cannot start.
  ChildProcess(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env,
               const std::string& log_path);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // True while the group leader has not exited (reaps it when it has).
  bool running();
  // Waits for the leader to exit by itself; its exit status (128 + signal when killed).
  int wait();
  // SIGTERM to the group, SIGKILL to what is left after `grace_s`; the leader's exit status.
  int stop(double grace_s);

 private:
  void wait_leader();  // blocks until the leader is reaped; never throws
  void reap_group();
  bool group_alive() const;

  pid_t pid_ = -1;
  bool exited_ = false;    // the leader has been reaped
  bool finished_ = false;  // the whole group is gone: nothing left to stop
  int status_ = 0;
};

// A TCP port on 127.0.0.1 that was free a moment ago (bound with port 0 and closed).
int free_port();

// The exit status a shell would report for a waitpid() status.
int exit_code(int wait_status);

}  // namespace plumb::bench
