#include "reducer.h"

#include <cstdio>
#include <functional>
#include <set>

namespace bindery::apifuzz {

std::string FailureClass(const std::string& failure) {
  if (failure.rfind("validation message: ", 0) == 0) {
    const std::string rest = failure.substr(20);
    return "validation " + rest.substr(0, rest.find(':'));
  }
  return failure.substr(0, failure.find(' '));
}

namespace {

class Reducer {
 public:
  Reducer(const RunOptions& o, const std::string& config, const std::string& failure, unsigned max)
      : o_(o), config_(config), want_(FailureClass(failure)), max_(max) {}

  bool StillFails(const Program& p) {
    if (evaluations_ >= max_) return false;
    ++evaluations_;
    auto out = RunProgram(o_, {"native", config_}, p);
    if (!NativeProblem(out["native"]).empty()) return false;
    const std::string f = Compare(out["native"], out[config_]);
    if (f.empty() || FailureClass(f) != want_) return false;
    last_failure_ = f;
    return true;
  }

  // Removes chunks [i, i + n) of a list, halving n down to 1.
  bool Shrink(Program& cur, const std::function<size_t(const Program&)>& size,
              const std::function<void(Program&, size_t, size_t)>& erase) {
    bool any = false;
    for (size_t n = std::max<size_t>(1, size(cur) / 2);; n /= 2) {
      for (size_t i = 0; i < size(cur);) {
        Program cand = cur;
        erase(cand, i, std::min(n, size(cur) - i));
        if (StillFails(cand)) {
          cur = std::move(cand);
          any = true;
        } else {
          i += n;
        }
      }
      if (n <= 1) break;
    }
    return any;
  }

  template <class V>
  static void EraseRange(V& v, size_t i, size_t n) {
    v.erase(v.begin() + static_cast<long>(i), v.begin() + static_cast<long>(i + n));
  }

  bool Pass(Program& cur) {
    bool any = Shrink(cur, [](const Program& p) { return p.steps.size(); },
                      [](Program& p, size_t i, size_t n) { EraseRange(p.steps, i, n); });
    for (size_t s = 0; s < cur.steps.size(); ++s) {
      if (cur.steps[s].kind != StepKind::kSubmit) continue;
      any |= Shrink(cur, [s](const Program& p) { return p.steps[s].cmds.size(); },
                    [s](Program& p, size_t i, size_t n) { EraseRange(p.steps[s].cmds, i, n); });
      any |= Shrink(cur, [s](const Program& p) { return p.steps[s].waits.size(); },
                    [s](Program& p, size_t i, size_t n) { EraseRange(p.steps[s].waits, i, n); });
      any |= Shrink(cur, [s](const Program& p) { return p.steps[s].signals.size(); },
                    [s](Program& p, size_t i, size_t n) { EraseRange(p.steps[s].signals, i, n); });
    }
    for (size_t pl = 0; pl < cur.pipelines.size(); ++pl) {
      for (size_t st = 0; st < cur.pipelines[pl].stages.size(); ++st) {
        any |= Shrink(cur, [pl, st](const Program& p) { return p.pipelines[pl].stages[st].ops.size(); },
                      [pl, st](Program& p, size_t i, size_t n) { EraseRange(p.pipelines[pl].stages[st].ops, i, n); });
      }
    }
    for (size_t l = 0; l < cur.set_layouts.size(); ++l) {
      any |= Shrink(cur, [l](const Program& p) { return p.set_layouts[l].bindings.size(); },
                    [l](Program& p, size_t i, size_t n) { EraseRange(p.set_layouts[l].bindings, i, n); });
    }
    for (size_t l = 0; l < cur.pipeline_layouts.size(); ++l) {
      any |= Shrink(cur, [l](const Program& p) { return p.pipeline_layouts[l].push.size(); },
                    [l](Program& p, size_t i, size_t n) { EraseRange(p.pipeline_layouts[l].push, i, n); });
      // Trailing sets only: set numbers stay what the commands name.
      while (cur.pipeline_layouts[l].sets.size() > 1) {
        Program cand = cur;
        cand.pipeline_layouts[l].sets.pop_back();
        if (!StillFails(cand)) break;
        cur = std::move(cand);
        any = true;
      }
    }
    for (size_t s = 0; s < cur.steps.size(); ++s) {  // one descriptor less per write where the binding allows
      if (cur.steps[s].kind != StepKind::kWrite) continue;
      any |= Shrink(cur, [s](const Program& p) { return p.steps[s].descs.size(); },
                    [s](Program& p, size_t i, size_t n) { EraseRange(p.steps[s].descs, i, n); });
    }
    return any;
  }

  // Drops pipelines no command binds (renumbering the rest).
  void DropUnusedPipelines(Program& cur) {
    std::set<uint32_t> used;
    for (const Step& s : cur.steps) {
      for (const Cmd& c : s.cmds) {
        if (c.kind == CmdKind::kBindPipeline) used.insert(c.pipeline);
      }
    }
    std::vector<uint32_t> remap(cur.pipelines.size(), UINT32_MAX);
    std::vector<Pipeline> kept;
    for (uint32_t i = 0; i < cur.pipelines.size(); ++i) {
      if (!used.count(i)) continue;
      remap[i] = static_cast<uint32_t>(kept.size());
      kept.push_back(cur.pipelines[i]);
    }
    Program cand = cur;
    cand.pipelines = kept;
    for (Step& s : cand.steps) {
      for (Cmd& c : s.cmds) {
        if (c.pipeline < remap.size()) c.pipeline = remap[c.pipeline] == UINT32_MAX ? 0 : remap[c.pipeline];
      }
    }
    if (kept.size() != cur.pipelines.size() && StillFails(cand)) cur = std::move(cand);
  }

  Reduction Run(const Program& p) {
    Program cur = p;
    if (!StillFails(cur)) return {cur, "did not fail again under the reducer", evaluations_};
    while (Pass(cur) && evaluations_ < max_) {
    }
    DropUnusedPipelines(cur);
    return {cur, last_failure_, evaluations_};
  }

 private:
  const RunOptions& o_;
  std::string config_, want_, last_failure_;
  unsigned max_, evaluations_ = 0;
};

}  // namespace

Reduction Reduce(const RunOptions& o, const std::string& config, const Program& p, const std::string& failure,
                 unsigned max_evaluations) {
  return Reducer(o, config, failure, max_evaluations).Run(p);
}

}  // namespace bindery::apifuzz
