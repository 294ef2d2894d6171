// bindery-apifuzz: random valid Vulkan programs, run natively and under Bindery, compared.
//
//   bindery-apifuzz --seed N [--count K] [--capability indirect|transfers|timeline|all|split|reordered]...
//                   [--jobs J] [--reduce] [--save DIR] [--known FILE]
//   bindery-apifuzz --print --seed N        the program of a seed, as Vulkan calls and GLSL
//   bindery-apifuzz --dump --seed N         the same in the text form --case and --program read
//   bindery-apifuzz --dump-features FILE    the features this device gives the generator, as text
//   bindery-apifuzz --compare-results A B   every differing word of two result files (--bytes-dir)
//   bindery-apifuzz --print --seed N --features FILE   the program of a seed on that other device
//   bindery-apifuzz --case FILE...          regression cases (each names its configuration)
//   bindery-apifuzz --native-only --seed N --count K   the generator's own test
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "device.h"
#include "features_text.h"
#include "generator.h"
#include "printer.h"
#include "reducer.h"
#include "result_file.h"
#include "runner.h"
#include "tally.h"

using namespace bindery::apifuzz;

namespace {

void SetLoaderDefaults() {
  // Like the test binaries: lavapipe and the build tree's manifest unless the caller chose
  // (scripts/lib/gpu_env.sh sets both on the GPU machine).
  const char* lvp = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json";
  ::setenv("VK_ICD_FILENAMES", lvp, 0);
  ::setenv("VK_DRIVER_FILES", lvp, 0);
  ::setenv("VK_ADD_LAYER_PATH", BINDERY_APIFUZZ_LAYER_PATH ":" BINDERY_APIFUZZ_STANDIN_LAYER_PATH, 0);
  ::setenv("XDG_RUNTIME_DIR", "/tmp", 0);
}

int Usage() {
  std::fprintf(stderr,
               "usage: bindery-apifuzz --seed N [--count K] [--capability indirect|transfers|timeline|all|split|reordered]...\n"
               "                       [--jobs J] [--batch B] [--reduce] [--max-reduce M] [--save DIR]\n"
               "                       [--known FILE] [--hang-seconds S] [--time-limit S] [--progress-every P]\n"
               "                       [--descriptor-indexing-standin] [--inherited-queries-standin]\n"
               "                       [--shared-queues N] [--lagging-queue N] [--push-images] [--packed-copies]\n"
               "                       [--many-sets]\n"
               "                       [--image-transfers]\n"
               "                       [--bytes-dir DIR]\n"
               "       bindery-apifuzz --print|--dump --seed N [--features FILE]\n"
               "       bindery-apifuzz --dump-features FILE\n"
               "       bindery-apifuzz --compare-results FILE FILE\n"
               "       bindery-apifuzz --case FILE... [--known FILE]\n"
               "       bindery-apifuzz --native-only --seed N --count K\n");
  return 2;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Known failures: lines "<config> <seed>" (a seed of the fuzz run) or "case <file name>";
// '#' starts a comment.
Known ReadKnown(const std::string& path) {
  Known k;
  if (path.empty()) return k;
  std::istringstream in(ReadFile(path));
  for (std::string line; std::getline(in, line);) {
    line = line.substr(0, line.find('#'));
    std::istringstream l(line);
    std::string a, b;
    if (!(l >> a >> b)) continue;
    if (a == "case") k.cases.insert(b);
    else k.seeds.insert({a, std::stoull(b)});
  }
  return k;
}

// A case that needs the descriptor-indexing stand-in on lavapipe says so on this line.
constexpr const char* kStandInCaseLine = "# descriptor-indexing-standin";
// A case found with queues shared by the test layer (--shared-queues N) says so on this line.
constexpr const char* kSharedQueuesCaseLine = "# shared-queues";
// A case found on the inheritedQueries stand-in (--inherited-queries-standin) says so here.
constexpr const char* kInheritedQueriesCaseLine = "# inherited-queries-standin";
// A case with packed copies (--packed-copies) needs 16/8-bit storage on its device.
constexpr const char* kPackedCopiesCaseLine = "# packed-copies";

bool HasPackedCopies(const Program& p) {
  for (const Pipeline& pl : p.pipelines)
    for (const Stage& s : pl.stages)
      for (const ShaderOp& op : s.ops)
        if (op.kind == OpKind::kCopyPacked) return true;
  return false;
}

std::string CaseText(const Program& p, const std::string& config, const std::string& failure) {
  std::ostringstream o;
  o << "# bindery-apifuzz regression case: seed " << p.seed << ", configuration " << config << "\n"
    << "# config: " << config << "\n";
  // Found on the stand-in for the descriptor-indexing features: it runs there again.
  if (DescriptorIndexingStandIn()) o << kStandInCaseLine << "\n";
  if (InheritedQueriesStandIn()) o << kInheritedQueriesCaseLine << "\n";
  // Found on lavapipe's stand-in for several queues: it runs there again.
  if (p.queues > 1 && SharedQueues() > 1) o << kSharedQueuesCaseLine << " " << SharedQueues() << "\n";
  if (HasPackedCopies(p)) o << kPackedCopiesCaseLine << "\n";
  o << "# failed with: " << failure << "\n#\n";
  std::istringstream listing(Listing(p));
  for (std::string line; std::getline(listing, line);) o << "# " << line << "\n";
  o << "#\n" << Serialize(p);
  return o.str();
}

// Removes a directory of result files (flat: what the children wrote).
void RemoveDir(const std::string& dir) {
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (name != "." && name != "..") ::unlink((dir + "/" + name).c_str());
    }
    ::closedir(d);
  }
  ::rmdir(dir.c_str());
}

std::string CaseConfig(const std::string& text) {
  const auto at = text.find("# config: ");
  if (at == std::string::npos) return "";
  const auto end = text.find('\n', at);
  return text.substr(at + 10, end - at - 10);
}

int RunCases(const RunOptions& o, const std::vector<std::string>& files, const Known& known) {
  int failed = 0;
  const bool standin_for_all = DescriptorIndexingStandIn();
  const bool inherited_for_all = InheritedQueriesStandIn();
  const bool shared_for_all = SharedQueues() > 1;
  for (const std::string& f : files) {
    const std::string text = ReadFile(f);
    // Each case on the device it was found on (the children inherit the choice).
    const bool standin = standin_for_all || text.find(std::string(kStandInCaseLine) + "\n") != std::string::npos;
    ::setenv("BINDERY_APIFUZZ_DESCRIPTOR_INDEXING_STANDIN", standin ? "1" : "0", 1);
    const bool inherited =
        inherited_for_all || text.find(std::string(kInheritedQueriesCaseLine) + "\n") != std::string::npos;
    ::setenv("BINDERY_APIFUZZ_INHERITED_QUERIES_STANDIN", inherited ? "1" : "0", 1);
    const auto shared = text.find(std::string(kSharedQueuesCaseLine) + " ");
    if (shared != std::string::npos) {
      const size_t at = shared + std::strlen(kSharedQueuesCaseLine) + 1;
      ::setenv("BINDERY_APIFUZZ_SHARED_QUEUES", text.substr(at, text.find('\n', at) - at).c_str(), 1);
    } else if (!shared_for_all) {
      ::unsetenv("BINDERY_APIFUZZ_SHARED_QUEUES");
    }
    const bool packed = text.find(std::string(kPackedCopiesCaseLine) + "\n") != std::string::npos;
    ::setenv("BINDERY_APIFUZZ_PACKED_COPIES", packed ? "1" : "0", 1);
    Program p;
    std::string error;
    const std::string config = CaseConfig(text);
    if (!Parse(text, &p, &error) || !IsConfig(config)) {
      std::printf("FAIL %s: unreadable case (%s)\n", f.c_str(), error.empty() ? "no '# config:' line" : error.c_str());
      ++failed;
      continue;
    }
    auto out = RunProgram(o, {"native", config}, p);
    std::string why = NativeProblem(out["native"]);
    if (!why.empty()) why = "generator: " + why;
    else why = Compare(out["native"], out[config]);
    const std::string base = f.substr(f.find_last_of('/') + 1);
    const bool is_known = known.cases.count(base) > 0;
    if (why.empty()) {
      std::printf("%s %s (%s)\n", is_known ? "PASS (listed as known: flip it to must-pass)" : "PASS", base.c_str(),
                  config.c_str());
    } else if (is_known) {
      std::printf("KNOWN %s (%s): %s\n", base.c_str(), config.c_str(), why.c_str());
    } else {
      std::printf("FAIL %s (%s): %s\n", base.c_str(), config.c_str(), why.c_str());
      ++failed;
    }
  }
  return failed ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  SetLoaderDefaults();
  std::vector<std::string> args(argv + 1, argv + argc);
  uint64_t seed = 0, count = 1, stride = 1;
  bool have_seed = false, reduce = false, print = false, dump = false, native_only = false;
  unsigned max_reduce = 3, max_evaluations = 600;
  double time_limit = 0;        // seconds; 0: none
  uint64_t progress_every = 0;  // programs between progress lines; 0: one batch
  std::vector<std::string> configs, case_files;
  std::string child_config, program_file, save_dir = ".", known_file, record_known, result_suffix;
  std::string features_file, dump_features, bytes_dir;
  std::vector<std::string> compare_results;
  RunOptions o;
  o.self = "/proc/self/exe";
  char self[4096];
  const ssize_t n = ::readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n > 0) o.self.assign(self, static_cast<size_t>(n));
  o.jobs = std::max(1u, static_cast<unsigned>(sysconf(_SC_NPROCESSORS_ONLN)));
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= args.size()) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(Usage());
      }
      return args[++i];
    };
    if (a == "--seed") {
      seed = std::stoull(value());
      have_seed = true;
    } else if (a == "--stride") {
      stride = std::max<uint64_t>(1, std::stoull(value()));
    } else if (a == "--rotate") {
      o.rotate = true;
    } else if (a == "--count") {
      count = std::stoull(value());
    } else if (a == "--capability") {
      const std::string c = value();
      if (!IsConfig(c) || c == "native") return Usage();
      configs.push_back(c);
    } else if (a == "--jobs") {
      o.jobs = std::max(1u, static_cast<unsigned>(std::stoul(value())));
    } else if (a == "--batch") {
      o.batch = std::max(1u, static_cast<unsigned>(std::stoul(value())));
    } else if (a == "--hang-seconds") {
      o.hang_seconds = std::stod(value());
    } else if (a == "--time-limit") {
      time_limit = std::stod(value());
    } else if (a == "--progress-every") {
      progress_every = std::stoull(value());
    } else if (a == "--reduce") {
      reduce = true;
    } else if (a == "--max-reduce") {
      max_reduce = static_cast<unsigned>(std::stoul(value()));
    } else if (a == "--max-evaluations") {
      max_evaluations = static_cast<unsigned>(std::stoul(value()));
    } else if (a == "--save") {
      save_dir = value();
    } else if (a == "--record-known") {
      record_known = value();
    } else if (a == "--known") {
      known_file = value();
    } else if (a == "--print") {
      print = true;
    } else if (a == "--dump") {
      print = dump = true;
    } else if (a == "--descriptor-indexing-standin") {
      ::setenv("BINDERY_APIFUZZ_DESCRIPTOR_INDEXING_STANDIN", "1", 1);  // children inherit it
    } else if (a == "--inherited-queries-standin") {
      ::setenv("BINDERY_APIFUZZ_INHERITED_QUERIES_STANDIN", "1", 1);  // children inherit it
    } else if (a == "--lagging-queue") {
      ::setenv("BINDERY_APIFUZZ_LAGGING_QUEUE", value().c_str(), 1);  // children inherit it
    } else if (a == "--shared-queues") {
      ::setenv("BINDERY_APIFUZZ_SHARED_QUEUES", value().c_str(), 1);  // children inherit it
    } else if (a == "--packed-copies") {
      ::setenv("BINDERY_APIFUZZ_PACKED_COPIES", "1", 1);  // children inherit it
    } else if (a == "--many-sets") {
      ::setenv("BINDERY_APIFUZZ_MANY_SETS", "1", 1);  // children inherit it
    } else if (a == "--push-images") {
      ::setenv("BINDERY_APIFUZZ_PUSH_IMAGES", "1", 1);  // children inherit it
    } else if (a == "--image-transfers") {
      ::setenv("BINDERY_APIFUZZ_IMAGE_TRANSFERS", "1", 1);  // children inherit it
    } else if (a == "--native-only") {
      native_only = true;
    } else if (a == "--case") {
      while (i + 1 < args.size() && args[i + 1].rfind("--", 0) != 0) case_files.push_back(args[++i]);
    } else if (a == "--child") {
      child_config = value();
    } else if (a == "--program") {
      program_file = value();
    } else if (a == "--result-suffix") {
      result_suffix = value();
    } else if (a == "--features") {
      features_file = value();
    } else if (a == "--dump-features") {
      dump_features = value();
    } else if (a == "--compare-results") {
      compare_results = {value(), value()};
    } else if (a == "--bytes-dir") {
      bytes_dir = value();
    } else {
      return Usage();
    }
  }
  if (!child_config.empty()) return ChildMain(child_config, seed, count, stride, program_file, result_suffix);
  if (!compare_results.empty()) {
    RunResult ra, rb;
    for (int k = 0; k < 2; ++k) {
      if (!ReadResult(compare_results[k], k == 0 ? &ra : &rb)) {
        std::fprintf(stderr, "cannot read the result file %s\n", compare_results[k].c_str());
        return 2;
      }
    }
    const std::string d = AllDifferences(ra, rb);
    std::printf("%s", d.empty() ? "the same bytes\n" : d.c_str());
    return d.empty() ? 0 : 1;
  }
  if (!dump_features.empty()) {
    Features f;
    std::string error;
    if (!QueryFeatures(&f, &error)) {
      std::fprintf(stderr, "%s\n", error.c_str());
      return 2;
    }
    std::ofstream out(dump_features);
    out << FeaturesText(f);
    if (!out) {
      std::fprintf(stderr, "cannot write %s\n", dump_features.c_str());
      return 2;
    }
    return 0;
  }
  const Known known = ReadKnown(known_file);
  if (!case_files.empty()) return RunCases(o, case_files, known);
  if (!have_seed) return Usage();
  if (print) {
    Features f;
    std::string error;
    // Another device's features (--dump-features there): its programs, listed here.
    const bool ok = features_file.empty() ? QueryFeatures(&f, &error)
                                          : ParseFeatures(ReadFile(features_file), &f, &error);
    if (!ok) {
      std::fprintf(stderr, "%s\n", error.c_str());
      return 2;
    }
    // A generation choice, not a device property (the file does not carry it).
    f.push_images = f.push_descriptor && f.images && PushImagesShape();
    f.packed_copies = f.packed_copies || PackedCopiesShape();  // assumed there (the file does not say)
    f.many_sets = ManySetsShape();
    const Program p = Generate(seed, f);
    std::printf("%s", (dump ? Serialize(p) : Listing(p)).c_str());
    return 0;
  }
  if (configs.empty() && !native_only) configs = {"indirect", "transfers", "timeline", "all", "split"};
  for (const std::string& c : configs) {
    if (c == "reordered" && SharedQueues() <= 1)
      std::printf("apifuzz: 'reordered' lags one queue behind the others of --shared-queues N; "
                  "without them it is the native run again\n");
  }
  std::vector<std::string> all = {"native"};
  all.insert(all.end(), configs.begin(), configs.end());

  // Which queues the programs get, and why only one where that is so.
  {
    Features f;
    std::string error;
    if (QueryFeatures(&f, &error)) {
      if (f.queues <= 1) {
        std::printf("apifuzz: one queue per program: the device's graphics+compute family has one queue "
                    "(--shared-queues N offers N backed by it through a test layer)\n");
      } else {
        std::printf("apifuzz: up to %u queues per program%s\n", f.queues,
                    f.shared_queues ? ", shared by a test layer over one driver queue (no submission waits for "
                                      "a later one)"
                                    : " (wait-before-signal across queues)");
      }
      std::fflush(stdout);
    }
  }
  // Each program's result bytes go to files (result_file.h), so that a difference can be
  // named; those of programs that pass are deleted as they are judged. --bytes-dir keeps the
  // differing ones; otherwise a directory of this run's own, removed at the end.
  bool own_bytes_dir = false;
  if (bytes_dir.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp != nullptr && *tmp ? tmp : "/tmp") + "/bindery-apifuzz-bytes-XXXXXX";
    if (::mkdtemp(pattern.data()) != nullptr) {
      bytes_dir = pattern;
      own_bytes_dir = true;
    }
  } else {
    ::mkdir(bytes_dir.c_str(), 0755);
    ::setenv("BINDERY_APIFUZZ_KEEP_BYTES", "1", 1);
  }
  if (!bytes_dir.empty()) ::setenv("BINDERY_APIFUZZ_BYTES_DIR", bytes_dir.c_str(), 1);
  StopOnSignals();
  if (time_limit > 0) {
    o.stop_at = std::chrono::steady_clock::now() +
                std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(time_limit));
  }
  Tally tally(o, all, known, seed, count, progress_every ? progress_every : o.batch);
  RunSeeds(o, all, seed, count,
           [&](const Outcomes& out, uint64_t first, uint64_t end, uint64_t step) { tally.TaskEnded(out, first, end, step); });
  const bool stopped = tally.judged() < count;
  tally.ConfirmDifferences();
  tally.Summarize(stopped);
  ::unsetenv("BINDERY_APIFUZZ_BYTES_DIR");  // the reducer's runs need no files
  if (own_bytes_dir) RemoveDir(bytes_dir);
  const std::vector<Failure>& failures = tally.failures();
  if (!record_known.empty()) {
    std::ofstream k(record_known);
    k << "# bindery-apifuzz known failures: <configuration> <seed>  # failure class (written by --record-known)\n";
    for (const Failure& f : failures) {
      if (f.config != "native") k << f.config << " " << f.seed << "  # " << FailureClass(f.why) << "\n";
    }
    for (const Failure& f : tally.known_failures())
      k << f.config << " " << f.seed << "  # " << FailureClass(f.why) << "\n";
  }

  if (reduce && !stopped) {
    Features features;
    std::string error;
    if (!QueryFeatures(&features, &error)) return 2;
    std::set<std::string> done;  // one reduction per configuration and failure class
    unsigned reduced = 0;
    for (const Failure& f : failures) {
      if (f.config == "native" || reduced >= max_reduce) continue;
      if (FailureClass(f.why) == "results-flaky") {
        // A cut is judged by one run: a failure that comes and goes cannot guide it.
        std::printf("\nnot reducing seed %llu under %s: its difference did not come back in every run\n",
                    static_cast<unsigned long long>(f.seed), f.config.c_str());
        continue;
      }
      if (!done.insert(f.config + "/" + FailureClass(f.why)).second) continue;
      ++reduced;
      std::printf("\nreducing seed %llu under %s (%s) ...\n", static_cast<unsigned long long>(f.seed),
                  f.config.c_str(), f.why.c_str());
      std::fflush(stdout);
      const Reduction r = Reduce(o, f.config, Generate(f.seed, features), f.why, max_evaluations);
      const std::string name = "seed" + std::to_string(f.seed) + "-" + f.config + ".case";
      const std::string path = save_dir + "/" + name;
      std::ofstream(path) << CaseText(r.program, f.config, r.failure);
      std::printf("reduced in %u runs, still failing with: %s\nsaved %s\n%s", r.evaluations, r.failure.c_str(),
                  path.c_str(), Listing(r.program).c_str());
      std::fflush(stdout);
    }
  }
  return failures.empty() && !stopped ? 0 : 1;
}
