#include "runner.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <memory>
#include <sstream>

#include "device.h"
#include "generator.h"
#include "result_file.h"

namespace bindery::apifuzz {

const std::vector<std::string>& AllConfigs() {
  static const std::vector<std::string> configs = {"native", "indirect", "transfers", "timeline",
                                                    "all",    "split",    "reordered"};
  return configs;
}

bool UsesBindery(const std::string& config) { return config != "native" && config != "reordered"; }

bool IsConfig(const std::string& name) {
  for (const std::string& c : AllConfigs()) {
    if (c == name) return true;
  }
  return false;
}

namespace {

// Each capability forced alone (the others off), then all of them. "indirect" converts
// uniform buffers too (every binding the generator makes converts); "all" leaves them
// native, so that sets mixing converted and native bindings, and copies between such sets
// and native ones, are exercised there. "split" is "indirect" with the split root forced
// (bindings_root_split=on: a compute copy of the root after the graphics one, each in half
// the space, so roots go to the ring far more often; `auto` leaves it off on lavapipe's 128
// bytes and on elsewhere).
void ApplyConfigEnv(const std::string& config) {
  const bool all = config == "all";
  const bool indirect = config == "indirect" || config == "split";
  // "reordered": natively, but on lavapipe's shared queues one queue (0, or
  // BINDERY_APIFUZZ_LAGGING_QUEUE) lags behind the others (tests/no_timeline_layer): work that
  // nothing orders after that queue's runs first.
  if (config == "reordered") {
    const char* q = std::getenv("BINDERY_APIFUZZ_LAGGING_QUEUE");
    ::setenv("BINDERY_TEST_LAGGING_QUEUE", q != nullptr && *q ? q : "0", 1);
  } else {
    ::unsetenv("BINDERY_TEST_LAGGING_QUEUE");
  }
  ::setenv("BINDERY_INDIRECT_BINDINGS", all || indirect ? "force" : "off", 1);
  ::setenv("BINDERY_BINDINGS_UBO", indirect ? "on" : "off", 1);
  ::setenv("BINDERY_BINDINGS_ROOT_SPLIT", config == "split" ? "on" : "auto", 1);
  ::setenv("BINDERY_TRANSFERS", all || config == "transfers" ? "force" : "off", 1);
  ::setenv("BINDERY_TIMELINE", all || config == "timeline" ? "force" : "off", 1);
}

std::string Hash(const std::vector<uint8_t>& bytes) {
  uint64_t h = 1469598103934665603ull;
  for (uint8_t b : bytes) h = (h ^ b) * 1099511628211ull;
  char out[40];
  std::snprintf(out, sizeof(out), "%016llx-%zu", static_cast<unsigned long long>(h), bytes.size());
  return out;
}

std::string OneLine(std::string s) {
  for (char& c : s) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  if (s.size() > 600) s = s.substr(0, 600) + "...";
  return s;
}

void Emit(const std::string& line) {
  const std::string l = line + "\n";
  size_t done = 0;
  while (done < l.size()) {
    const ssize_t n = ::write(1, l.data() + done, l.size() - done);
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

// Validation problems (and Bindery's own errors) among messages [from, end).
std::vector<std::string> Problems(const test::VkHarness& h, size_t from) {
  std::vector<std::string> out;
  const auto all = h.Messages();
  for (size_t i = from; i < all.size(); ++i) {
    const test::Message& m = all[i];
    const bool bindery = m.id.rfind("BINDERY-", 0) == 0;
    if (m.id == "Loader Message") continue;
    if (bindery ? m.severity < VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT
                : m.severity < VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT)
      continue;
    out.push_back(OneLine(m.id + ": " + m.text));
  }
  return out;
}

// BINDERY_APIFUZZ_LOSE_DEVICE=<seed>[,<config>:<seed>...]: the run of that seed (under every
// configuration, or only the one named) sees VK_ERROR_DEVICE_LOST at its first wait for idle,
// to exercise the recovery (leak, teardown, reopen) on drivers that never lose a device.
bool InjectedLoss(const std::string& config, uint64_t seed) {
  const char* env = std::getenv("BINDERY_APIFUZZ_LOSE_DEVICE");
  if (env == nullptr) return false;
  std::stringstream list(env);
  for (std::string item; std::getline(list, item, ',');) {
    const size_t colon = item.find(':');
    if (colon != std::string::npos && item.substr(0, colon) != config) continue;
    if (std::strtoull(item.c_str() + (colon == std::string::npos ? 0 : colon + 1), nullptr, 10) == seed) return true;
  }
  return false;
}

// BINDERY_APIFUZZ_FLIP_RESULT=<config>:<seed>:<runs> (runs: "all", "first": only the fuzz
// run's, "reruns": only the confirming runs'): that run's result bytes get one word changed,
// to test how a difference is confirmed and named on a driver whose results never change.
bool FlippedResult(const std::string& config, uint64_t seed, const std::string& result_suffix) {
  const char* env = std::getenv("BINDERY_APIFUZZ_FLIP_RESULT");
  if (env == nullptr) return false;
  std::stringstream list(env);
  for (std::string item; std::getline(list, item, ',');) {
    std::stringstream parts(item);
    std::string c, s, runs;
    std::getline(parts, c, ':');
    std::getline(parts, s, ':');
    std::getline(parts, runs, ':');
    if (c != config || s.empty() || std::strtoull(s.c_str(), nullptr, 10) != seed) continue;
    if (runs == "all" || (runs == "first" && result_suffix.empty()) || (runs == "reruns" && !result_suffix.empty()))
      return true;
  }
  return false;
}

// BINDERY_APIFUZZ_SKIP_SEEDS=<seed>[,<seed>...]: seeds that lost the device natively in an
// earlier run (scripts/apifuzz-long passes them on): not run again, reported as skipped. On
// the H100 one native loss left the GPU unusable until the machine was replaced.
bool SkippedSeed(uint64_t seed) {
  const char* env = std::getenv("BINDERY_APIFUZZ_SKIP_SEEDS");
  if (env == nullptr) return false;
  std::stringstream list(env);
  for (std::string item; std::getline(list, item, ',');) {
    if (!item.empty() && std::strtoull(item.c_str(), nullptr, 10) == seed) return true;
  }
  return false;
}

// Runs one program and prints its result; false: the child cannot go on (its device was lost
// and did not reopen, or it holds more devices than it should).
bool RunOne(Session& first, const Program& p, const std::string& config, const std::string& result_suffix) {
  if (SkippedSeed(p.seed)) {
    Emit("R " + std::to_string(p.seed) + " skipped - 0 0");
    return true;
  }
  const bool bindery = UsesBindery(config);
  Session* session = &first;
  if (UsesNullDescriptors(p)) {
    // Opened once per child and reused; dropped after a failed open so that the next
    // program tries again instead of inheriting the error.
    if (!first.null_descriptor) {
      first.null_descriptor = std::make_unique<Session>();
      OpenSession(bindery, first.null_descriptor.get(), true);
    }
    session = first.null_descriptor.get();
    if (!session->error.empty()) {
      Emit("R " + std::to_string(p.seed) + " setup-error - 0 0");
      Emit("M " + std::to_string(p.seed) + " " + OneLine("device with nullDescriptor: " + session->error));
      first.null_descriptor.reset();
      return true;
    }
  }
  Session& s = *session;
  const size_t before = s.harness->Messages().size();
  Device device = s.device;
  device.inject_loss = InjectedLoss(config, p.seed);
  RunResult r = Execute(device, p);
  if (FlippedResult(config, p.seed, result_suffix) && r.bytes.size() >= 8) r.bytes[r.bytes.size() / 2] ^= 0x5a;
  const auto problems = Problems(*s.harness, before);
  if (r.device_lost) {
    // Charged to this program; its messages (what led to the loss, Bindery's notice of it)
    // follow. The device is gone, and the programs after it get a new one.
    Emit("R " + std::to_string(p.seed) + " device-lost - 0 " + std::to_string(problems.size()));
    Emit("M " + std::to_string(p.seed) + " " + OneLine(r.lost + (session == &first ? "" : " (nullDescriptor device)")));
    for (size_t i = 0; i < problems.size() && i < 8; ++i) Emit("M " + std::to_string(p.seed) + " " + problems[i]);
    // The seeds after it go to a fresh process (the parent starts one): nothing of this
    // process's driver state, which a real driver may leave broken, reaches them.
    Emit("E the device was lost at seed " + std::to_string(p.seed) + ": the rest go to a fresh process");
    return false;
  }
  if (OpenDevices() > 2) {
    Emit("E the child holds " + std::to_string(OpenDevices()) + " devices (at most 2 expected): a leak");
    return false;
  }
  if (!r.error.empty()) {
    Emit("R " + std::to_string(p.seed) + " setup-error - 0 " + std::to_string(problems.size()));
    Emit("M " + std::to_string(p.seed) + " " + OneLine(r.error));
  } else {
    // The bytes themselves, for the parent to name a difference (written before the result
    // line, so that the file is complete once the parent reads that line).
    const std::string dir = ResultDir();
    if (!dir.empty()) WriteResult(ResultPath(dir, config, p.seed, result_suffix), r);
    Emit("R " + std::to_string(p.seed) + " ok " + Hash(r.bytes) + " " + std::to_string(r.skipped) + " " +
         std::to_string(problems.size()));
  }
  for (size_t i = 0; i < problems.size() && i < 8; ++i) Emit("M " + std::to_string(p.seed) + " " + problems[i]);
  return true;
}

}  // namespace

int ChildMain(const std::string& config, uint64_t seed, uint64_t count, uint64_t stride,
              const std::string& program_file, const std::string& result_suffix) {
  ApplyConfigEnv(config);
  Session s;
  OpenSession(UsesBindery(config), &s);
  if (!s.error.empty()) {
    Emit("E " + OneLine(s.error));
    return 2;
  }
  if (!program_file.empty()) {
    std::ifstream in(program_file);
    std::stringstream text;
    text << in.rdbuf();
    Program p;
    std::string error;
    if (!Parse(text.str(), &p, &error)) {
      Emit("E cannot read " + program_file + ": " + error);
      return 2;
    }
    return RunOne(s, p, config, result_suffix) ? 0 : 3;
  }
  for (uint64_t i = 0; i < count; ++i) {
    if (!RunOne(s, Generate(seed + i * stride, s.device.features), config, result_suffix)) return 3;
  }
  return 0;
}

namespace {

volatile std::sig_atomic_t stop_requested = 0;

void RequestStop(int) { stop_requested = 1; }

struct Task {
  std::string config;
  uint64_t seed = 0, count = 0, stride = 1;  // seeds seed, seed + stride, ... (count of them)
  std::string program_file;                  // instead of seeds
  // Where its results go in the Outcomes (default: config), and the suffix of its result
  // files: the confirmation of a difference runs a configuration again beside the first run.
  std::string key, result_suffix;
};

const std::string& Key(const Task& t) { return t.key.empty() ? t.config : t.key; }

struct Child {
  Task task;
  pid_t pid = -1;
  int fd = -1;
  std::string buffer;
  uint64_t next = 0;  // the seed whose result line comes next
  std::chrono::steady_clock::time_point last;
  std::string last_error;
};

std::vector<std::string> Args(const RunOptions& o, const Task& t) {
  std::vector<std::string> a = {o.self, "--child", t.config};
  if (!t.result_suffix.empty()) a.insert(a.end(), {"--result-suffix", t.result_suffix});
  if (!t.program_file.empty()) {
    a.insert(a.end(), {"--program", t.program_file});
  } else {
    a.insert(a.end(), {"--seed", std::to_string(t.seed), "--count", std::to_string(t.count), "--stride",
                       std::to_string(t.stride)});
  }
  return a;
}

bool Start(const RunOptions& o, Child& c) {
  int fds[2];
  if (::pipe(fds) != 0) return false;
  const auto args = Args(o, c.task);
  c.pid = ::fork();
  if (c.pid == 0) {
    ::dup2(fds[1], 1);
    ::close(fds[0]);
    ::close(fds[1]);
    std::vector<char*> argv;
    for (const std::string& s : args) argv.push_back(const_cast<char*>(s.c_str()));
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(fds[1]);
  c.fd = fds[0];
  c.next = c.task.seed;
  c.last = std::chrono::steady_clock::now();
  return c.pid > 0;
}

// Runs tasks, `jobs` children at once; results into `out[config][seed]`.
void RunTasks(const RunOptions& o, std::deque<Task> tasks, Outcomes& out, const TaskEnded& on_task_end = {}) {
  std::vector<Child> running;
  // Children in a row whose device did not open. After a device loss a real driver may
  // refuse every new device (a GPU that needs a reset): rather than fail every later
  // program with a setup error, the run stops and leaves them unjudged.
  unsigned open_failures = 0;
  // Results in a row that lost the device or hung: a GPU that loses every new device too, or
  // hangs every program (seen on the H100 after one fault, for the rest of the machine's
  // life: each fresh child lost its device or hung at its first program) would charge every
  // later program, a hang-seconds wait each; the run stops instead.
  unsigned lost_in_row = 0;
  auto lost_or_hung = [&](bool bad) {
    lost_in_row = bad ? lost_in_row + 1 : 0;
    if (lost_in_row == 10 && !stop_requested) {
      std::fprintf(stderr, "bindery-apifuzz: stopping: 10 programs in a row lost the device or hung (the GPU may "
                           "stay unusable after a lost device: go on from the first seed not judged, on a fresh "
                           "machine)\n");
      stop_requested = 1;
    }
  };
  while (!tasks.empty() || !running.empty()) {
    if (stop_requested || std::chrono::steady_clock::now() >= o.stop_at) {
      // Out of time: what finished stays, the rest has no result (not a crash or hang).
      for (Child& c : running) {
        ::kill(c.pid, SIGKILL);
        int status = 0;
        ::waitpid(c.pid, &status, 0);
        ::close(c.fd);
        // Judge the programs it finished (a caller judges only those with every result).
        if (on_task_end && c.task.program_file.empty())
          on_task_end(out, c.task.seed, c.task.seed + c.task.count * c.task.stride, c.task.stride);
      }
      return;
    }
    while (!tasks.empty() && running.size() < std::max(1u, o.jobs)) {
      Child c;
      c.task = tasks.front();
      tasks.pop_front();
      if (!Start(o, c)) {
        std::fprintf(stderr, "bindery-apifuzz: cannot start a child\n");
        std::exit(2);
      }
      running.push_back(std::move(c));
    }
    std::vector<pollfd> pfds;
    for (const Child& c : running) pfds.push_back({c.fd, POLLIN, 0});
    ::poll(pfds.data(), pfds.size(), 200);
    // A signal to the process group kills the children too: not a crash of their programs.
    if (stop_requested) continue;
    const auto now = std::chrono::steady_clock::now();
    for (size_t i = 0; i < running.size();) {
      Child& c = running[i];
      bool eof = false;
      if (pfds[i].revents & (POLLIN | POLLHUP | POLLERR)) {
        char buf[65536];
        const ssize_t n = ::read(c.fd, buf, sizeof(buf));
        if (n <= 0) eof = true;
        else c.buffer.append(buf, static_cast<size_t>(n));
      }
      // Parse complete lines.
      for (size_t nl; (nl = c.buffer.find('\n')) != std::string::npos;) {
        const std::string line = c.buffer.substr(0, nl);
        c.buffer.erase(0, nl + 1);
        c.last = now;
        std::istringstream in(line);
        std::string tag;
        in >> tag;
        if (tag == "R") {
          open_failures = 0;
          uint64_t seed;
          std::string status;
          ProgramOutcome po;
          size_t problems = 0;
          in >> seed >> status >> po.hash >> po.skipped >> problems;
          po.status = status == "ok"                                    ? ProgramOutcome::kOk
                      : status == "device-lost" || status == "skipped" ? ProgramOutcome::kDeviceLost
                                                                        : ProgramOutcome::kSetupError;
          // Not run (BINDERY_APIFUZZ_SKIP_SEEDS): judged as the native loss it was before.
          if (status == "skipped") po.detail = "not run again: it lost the device natively in an earlier run";
          lost_or_hung(status == "device-lost");
          out[Key(c.task)][seed] = po;
          c.next = seed + c.task.stride;
        } else if (tag == "M") {
          uint64_t seed;
          in >> seed;
          std::string rest;
          std::getline(in, rest);
          auto& po = out[Key(c.task)][seed];
          if (po.status == ProgramOutcome::kSetupError) po.detail += rest;
          else if (po.status == ProgramOutcome::kDeviceLost && po.detail.empty()) po.detail = rest.substr(1);
          else po.messages.push_back(rest.size() > 1 ? rest.substr(1) : rest);
        } else if (tag == "E") {
          c.last_error = line.substr(2);
        }
      }
      const bool hung = !eof && std::chrono::duration<double>(now - c.last).count() > o.hang_seconds;
      if (!eof && !hung) {
        ++i;
        continue;
      }
      if (hung) {
        ::kill(c.pid, SIGKILL);
        lost_or_hung(true);
      }
      int status = 0;
      ::waitpid(c.pid, &status, 0);
      ::close(c.fd);
      const bool program_mode = !c.task.program_file.empty();
      const uint64_t end = c.task.seed + (program_mode ? 1 : c.task.count * c.task.stride);
      const bool clean = !hung && WIFEXITED(status) && WEXITSTATUS(status) == 0;
      const std::string why = hung ? "no result within " + std::to_string(int(o.hang_seconds)) + " s"
                              : WIFSIGNALED(status) ? std::string("signal ") + strsignal(WTERMSIG(status))
                                                    : "exit status " + std::to_string(WEXITSTATUS(status));
      if (!c.last_error.empty() && c.next == c.task.seed && !program_mode && ++open_failures >= 3) {
        std::fprintf(stderr, "bindery-apifuzz: stopping: %u children in a row could not open the device (%s)\n",
                     open_failures, c.last_error.c_str());
        stop_requested = 1;
      } else if (!c.last_error.empty() && c.next == c.task.seed) {
        // The device did not open: every seed of the task fails alike.
        for (uint64_t s = c.next; s < end; s += c.task.stride) {
          auto& po = out[Key(c.task)][s];
          po.status = ProgramOutcome::kSetupError;
          po.detail = c.last_error;
        }
      } else if (!c.last_error.empty() && c.next < end) {
        // The child gave up after a result (its device was lost): the program that lost it
        // is charged already; the rest go to a fresh child.
        tasks.push_front({c.task.config, c.next, (end - c.next + c.task.stride - 1) / c.task.stride, c.task.stride, "",
                          c.task.key, c.task.result_suffix});
      } else if (c.next < end) {
        auto& po = out[Key(c.task)][c.next];
        po.status = hung ? ProgramOutcome::kHang : ProgramOutcome::kCrash;
        po.detail = clean ? "exited before its result" : why;
        const uint64_t rest = c.next + c.task.stride;
        // Next, not last: programs finish about in seed order, so a run stopped early has
        // judged a prefix of its seeds (a long run continues from there).
        if (rest < end)
          tasks.push_front({c.task.config, rest, (end - rest) / c.task.stride, c.task.stride, "", c.task.key,
                            c.task.result_suffix});
      } else if (!clean && c.last_error.empty()) {  // after the last result: at device or instance destruction
        auto& po = out[Key(c.task)][end - c.task.stride];
        po.status = hung ? ProgramOutcome::kHang : ProgramOutcome::kCrash;
        po.detail = why + " after the last program (device teardown)";
      }
      if (on_task_end && !program_mode) on_task_end(out, c.task.seed, end, c.task.stride);
      running.erase(running.begin() + static_cast<long>(i));
      pfds.erase(pfds.begin() + static_cast<long>(i));
    }
  }
}

}  // namespace

void StopOnSignals() {
  struct sigaction sa = {};
  sa.sa_handler = RequestStop;
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);
}

std::vector<std::string> ConfigsOfSeed(const RunOptions& o, const std::vector<std::string>& configs, uint64_t seed) {
  if (!o.rotate || configs.size() <= 1) return configs;
  const uint64_t others = configs.size() - 1;
  return {configs[0], configs[1 + seed % others]};
}

Outcomes RunSeeds(const RunOptions& o, const std::vector<std::string>& configs, uint64_t seed, uint64_t count,
                  const TaskEnded& on_task_end) {
  std::deque<Task> tasks;
  // Interleave configurations so that a partial run still compares like with like.
  const uint64_t others = configs.size() > 1 ? configs.size() - 1 : 1;
  for (uint64_t s = seed; s < seed + count; s += o.batch) {
    const uint64_t n = std::min<uint64_t>(o.batch, seed + count - s);
    for (size_t i = 0; i < configs.size(); ++i) {
      if (!o.rotate || i == 0) {
        tasks.push_back({configs[i], s, n, 1, ""});
        continue;
      }
      // Rotation: configuration i (1-based after native) runs the seeds with seed % others == i - 1.
      uint64_t first = s;
      while (first % others != i - 1) ++first;
      if (first >= s + n) continue;
      tasks.push_back({configs[i], first, (s + n - first + others - 1) / others, others, ""});
    }
  }
  Outcomes out;
  RunTasks(o, tasks, out, on_task_end);
  return out;
}

std::map<std::string, ProgramOutcome> RunProgram(const RunOptions& o, const std::vector<std::string>& configs,
                                                 const Program& p) {
  char path[] = "/tmp/bindery-apifuzz-XXXXXX";
  const int fd = ::mkstemp(path);
  if (fd < 0) return {};
  const std::string text = Serialize(p);
  if (::write(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size())) std::perror("write");
  ::close(fd);
  std::deque<Task> tasks;
  for (const std::string& c : configs) tasks.push_back({c, p.seed, 1, 1, path});
  Outcomes out;
  RunTasks(o, tasks, out);
  ::unlink(path);
  std::map<std::string, ProgramOutcome> result;
  for (const std::string& c : configs) result[c] = out[c][p.seed];
  return result;
}

namespace {

// "device-lost ..." (the failure class is its first word), with the first message, which
// may say why.
std::string LostDevice(const std::string& where, const ProgramOutcome& o) {
  std::string s = "device-lost " + where + " (" + o.detail + ")";
  if (!o.messages.empty()) s += "; first message: " + o.messages[0];
  return s;
}

}  // namespace

std::string NativeProblem(const ProgramOutcome& n) {
  switch (n.status) {
    case ProgramOutcome::kOk: break;
    case ProgramOutcome::kCrash: return "native run crashed (" + n.detail + ")";
    case ProgramOutcome::kHang: return "native run hung (" + n.detail + ")";
    case ProgramOutcome::kSetupError: return "setup error: " + n.detail;
    case ProgramOutcome::kDeviceLost: return LostDevice("natively", n);
    case ProgramOutcome::kMissing: return "no native result";
  }
  if (!n.messages.empty()) return "invalid natively: " + n.messages[0];
  return "";
}

std::string Compare(const ProgramOutcome& native, const ProgramOutcome& c) {
  switch (c.status) {
    case ProgramOutcome::kOk: break;
    case ProgramOutcome::kCrash: return "crash (" + c.detail + ")";
    case ProgramOutcome::kHang: return "hang (" + c.detail + ")";
    case ProgramOutcome::kSetupError: return "setup error: " + c.detail;
    case ProgramOutcome::kDeviceLost: return LostDevice("under Bindery only", c);
    case ProgramOutcome::kMissing: return "no result";
  }
  if (!c.messages.empty()) return "validation message: " + c.messages[0];
  if (c.hash != native.hash) return "results differ (" + native.hash + " natively, " + c.hash + ")";
  return "";
}

std::vector<Confirmation> ConfirmDifferences(const RunOptions& o, const std::vector<Difference>& diffs,
                                             unsigned reruns) {
  struct State {
    std::vector<std::string> native_hashes;  // the first run's, then each re-run's
    unsigned layer_runs = 1, layer_matched = 0;
    std::string native_problem;  // a re-run natively that was not clean
    std::string native_differs_file;  // the native re-run that disagreed
    bool decided = false, missing = false;
  };
  std::vector<State> st(diffs.size());
  for (size_t i = 0; i < diffs.size(); ++i) st[i].native_hashes.push_back(diffs[i].native.hash);
  RunOptions ro = o;
  ro.stop_at = std::chrono::steady_clock::time_point::max();  // a time-limited run still confirms what it found
  const std::string dir = ResultDir();
  for (unsigned round = 1; round <= reruns; ++round) {
    std::deque<Task> tasks;
    const std::string suffix = "-r" + std::to_string(round);
    for (size_t i = 0; i < diffs.size(); ++i) {
      if (st[i].decided) continue;
      const Difference& d = diffs[i];
      tasks.push_back({"native", d.seed, 1, 1, "", "native@" + d.config + suffix, suffix + "-for-" + d.config});
      tasks.push_back({d.config, d.seed, 1, 1, "", d.config + suffix, suffix});
    }
    if (tasks.empty()) break;
    Outcomes out;
    RunTasks(ro, tasks, out);
    for (size_t i = 0; i < diffs.size(); ++i) {
      State& s = st[i];
      if (s.decided) continue;
      const Difference& d = diffs[i];
      const auto& natives = out["native@" + d.config + suffix];
      const auto& layers = out[d.config + suffix];
      if (!natives.count(d.seed) || !layers.count(d.seed)) {  // stopped by a signal
        s.decided = s.missing = true;
        continue;
      }
      const ProgramOutcome& n = natives.at(d.seed);
      const ProgramOutcome& l = layers.at(d.seed);
      const std::string np = NativeProblem(n);
      if (!np.empty() || n.hash != d.native.hash) {
        s.native_hashes.push_back(np.empty() ? n.hash : "(" + np + ")");
        s.native_problem = np;
        s.native_differs_file = ResultPath(dir, "native", d.seed, suffix + "-for-" + d.config);
        s.decided = true;  // the native side alone disagrees: no use running more
        continue;
      }
      s.native_hashes.push_back(n.hash);
      ++s.layer_runs;
      if (Compare(n, l).empty()) ++s.layer_matched;
    }
  }
  std::vector<Confirmation> result;
  for (size_t i = 0; i < diffs.size(); ++i) {
    const State& s = st[i];
    const Difference& d = diffs[i];
    const std::string first_run = "results differ (" + d.native.hash + " natively, " + d.layer.hash + ")";
    std::string first_difference;
    if (!dir.empty()) {
      first_difference = "; first difference, native vs " + d.config + ": " +
                         FirstDifferenceOfFiles(ResultPath(dir, "native", d.seed, ""),
                                                ResultPath(dir, d.config, d.seed, ""));
    }
    Confirmation c;
    if (s.missing) {
      c = {"results", first_run + " [not confirmed: the re-runs were stopped]" + first_difference};
    } else if (!s.native_differs_file.empty()) {
      std::string hashes;
      for (const std::string& h : s.native_hashes) hashes += (hashes.empty() ? "" : ", ") + h;
      std::string native_difference;
      if (!dir.empty() && s.native_problem.empty()) {
        native_difference = "; first difference between the native runs: " +
                            FirstDifferenceOfFiles(ResultPath(dir, "native", d.seed, ""), s.native_differs_file);
      }
      c = {"native-nondeterministic", "native-nondeterministic (" + hashes + " natively; " + d.layer.hash + " under " +
                                          d.config + ")" + native_difference + first_difference};
    } else {
      const std::string runs = std::to_string(s.layer_runs) + " runs (" + std::to_string(s.native_hashes.size()) +
                               " native runs gave " + d.native.hash + ")";
      if (s.layer_matched == 0) {
        c = {"results", first_run + " [confirmed: differed in " + runs + "]" + first_difference};
      } else {
        c = {"results-flaky", "results-flaky (" + d.native.hash + " natively, " + d.layer.hash + " once): matched in " +
                                  std::to_string(s.layer_matched) + " of " + runs + first_difference};
      }
    }
    result.push_back(c);
  }
  return result;
}

}  // namespace bindery::apifuzz
