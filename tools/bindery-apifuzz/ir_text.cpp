// Text form of a Program: whitespace-separated unsigned numbers with section tags, written
// and read by one visitor so the two can never disagree. Case files start with comment
// lines ('#'), which Parse skips.
#include <sstream>

#include "ir.h"

namespace bindery::apifuzz {
namespace {

// Version 2 added nullable bindings, images and samplers; version 3 descriptor-indexing
// binding flags, update-after-bind layouts and pools, late steps and nonuniform indexing;
// version 4 the program's queue count and each submission's queue; version 5 buffers on
// external memory; version 6 each graphics pipeline's library mode and each stage's shared
// module; version 7 the images of the image transfer commands. Older texts (older cases) read
// with those absent.
constexpr const char* kHeaders[] = {"apifuzz-program-v1", "apifuzz-program-v2", "apifuzz-program-v3",
                                    "apifuzz-program-v4", "apifuzz-program-v5", "apifuzz-program-v6",
                                    "apifuzz-program-v7"};
constexpr int kVersions = 7;

struct Writer {
  std::ostringstream out;
  bool ok = true;
  int Version() {
    Tag(kHeaders[kVersions - 1]);
    return kVersions;
  }
  void Tag(const char* t) { out << "\n" << t; }
  void Num(uint64_t v) { out << ' ' << v; }
  template <class T>
  void Field(T& v) {
    if constexpr (std::is_enum_v<T>) Num(static_cast<uint64_t>(v));
    else Num(static_cast<uint64_t>(v));
  }
  template <class T, class F>
  void List(std::vector<T>& v, F&& each) {
    Num(v.size());
    for (T& x : v) each(x);
  }
};

struct Reader {
  std::istringstream in;
  bool ok = true;
  std::string error;
  void Fail(const std::string& why) {
    if (ok) error = why;
    ok = false;
  }
  void Tag(const char* t) {
    std::string s;
    if (!(in >> s) || s != t) Fail(std::string("expected '") + t + "', got '" + s + "'");
  }
  int Version() {
    std::string s;
    in >> s;
    for (int v = 1; v <= kVersions; ++v) {
      if (s == kHeaders[v - 1]) return v;
    }
    Fail("not an apifuzz program (header '" + s + "')");
    return 0;
  }
  uint64_t Num() {
    uint64_t v = 0;
    if (!ok) return 0;
    if (!(in >> v)) Fail("expected a number");
    return v;
  }
  template <class T>
  void Field(T& v) {
    v = static_cast<T>(Num());
  }
  template <class T, class F>
  void List(std::vector<T>& v, F&& each) {
    const uint64_t n = Num();
    if (n > 1000000) return Fail("list too long");
    v.assign(ok ? n : 0, T{});
    for (T& x : v) each(x);
  }
};

template <class V>
void VisitDesc(V& v, Desc& d) {
  v.Field(d.buffer);
  v.Field(d.offset);
  v.Field(d.range);
}

template <class V>
void VisitCmd(V& v, Cmd& c) {
  v.Tag("cmd");
  v.Field(c.kind);
  v.Field(c.graphics);
  v.Field(c.pipeline);
  v.Field(c.layout);
  v.Field(c.first);
  v.Field(c.stages);
  v.Field(c.binding);
  v.Field(c.use_template);
  v.List(c.sets, [&](uint32_t& x) { v.Field(x); });
  v.List(c.values, [&](uint32_t& x) { v.Field(x); });
  v.List(c.descs, [&](Desc& d) { VisitDesc(v, d); });
  v.Field(c.src);
  v.Field(c.src_offset);
  v.Field(c.size);
}

template <class V>
void VisitProgram(V& v, Program& p) {
  const int version = v.Version();
  v.Field(p.seed);
  v.Tag("buffers");
  v.List(p.buffers, [&](Buffer& b) {
    v.Field(b.size);
    v.Field(b.role);
    if (version >= 5) v.Field(b.external);
  });
  v.Tag("set_layouts");
  v.List(p.set_layouts, [&](SetLayout& l) {
    v.Field(l.push);
    if (version >= 3) v.Field(l.update_after_bind);
    v.List(l.bindings, [&](Binding& b) {
      v.Field(b.binding);
      v.Field(b.type);
      v.Field(b.count);
      v.Field(b.role);
      v.Field(b.stages);
      if (version >= 2) v.Field(b.nullable);
      if (version >= 3) v.Field(b.flags);
    });
  });
  v.Tag("pipeline_layouts");
  v.List(p.pipeline_layouts, [&](PipelineLayout& l) {
    v.List(l.sets, [&](uint32_t& x) { v.Field(x); });
    v.List(l.push, [&](PushRange& r) {
      v.Field(r.stages);
      v.Field(r.offset);
      v.Field(r.size);
    });
  });
  v.Tag("pipelines");
  v.List(p.pipelines, [&](Pipeline& pl) {
    v.Field(pl.layout);
    v.Field(pl.graphics);
    v.Field(pl.local_size);
    v.Field(pl.dispatch_base);
    v.List(pl.stages, [&](Stage& s) {
      v.Field(s.stage);
      v.List(s.ops, [&](ShaderOp& o) {
        v.Field(o.kind);
        v.Field(o.set);
        v.Field(o.binding);
        v.Field(o.element);
        v.Field(o.index);
        v.Field(o.value);
        v.Field(o.dynamic_element);
        if (version >= 3) v.Field(o.nonuniform);
      });
      if (version >= 6) v.Field(s.module);
    });
    if (version >= 6) v.Field(pl.library);
  });
  v.Tag("pools");
  v.List(p.pools, [&](Pool& pool) {
    v.Field(pool.max_sets);
    v.Field(pool.free_bit);
    if (version >= 3) v.Field(pool.update_after_bind);
  });
  if (version >= 2) {
    v.Tag("images");
    v.List(p.images, [&](Image& i) { v.Field(i.role); });
    v.Field(p.samplers);
  }
  if (version >= 7) {
    v.Tag("transfer_images");
    v.List(p.transfer_images, [&](TransferImage& i) {
      v.Field(i.format);
      v.Field(i.type);
      v.Field(i.width);
      v.Field(i.height);
      v.Field(i.depth);
      v.Field(i.mips);
      v.Field(i.layers);
    });
  }
  v.Tag("objects");
  v.Field(p.set_slots);
  v.Field(p.semaphores);
  if (version >= 4) v.Field(p.queues);
  v.List(p.indirect, [&](uint32_t& x) { v.Field(x); });
  v.Tag("steps");
  v.List(p.steps, [&](Step& s) {
    v.Tag("step");
    v.Field(s.kind);
    v.Field(s.pool);
    v.Field(s.layout);
    v.Field(s.slot);
    v.Field(s.binding);
    v.Field(s.element);
    v.Field(s.use_template);
    if (version >= 3) v.Field(s.late);
    v.List(s.descs, [&](Desc& d) { VisitDesc(v, d); });
    v.Field(s.src_slot);
    v.Field(s.src_binding);
    v.Field(s.src_element);
    v.Field(s.count);
    v.List(s.cmds, [&](Cmd& c) { VisitCmd(v, c); });
    auto wait = [&](Wait& w) {
      v.Field(w.semaphore);
      v.Field(w.value);
    };
    v.List(s.waits, wait);
    v.List(s.signals, wait);
    if (version >= 4) v.Field(s.queue);
  });
  v.Tag("end");
}

}  // namespace

std::string Serialize(const Program& p) {
  Writer w;
  Program copy = p;  // the visitor takes non-const references (shared with the reader)
  VisitProgram(w, copy);
  return w.out.str().substr(1) + "\n";
}

bool Parse(const std::string& text, Program* out, std::string* error) {
  std::string body;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && line[0] == '#') continue;
    body += line + "\n";
  }
  Reader r;
  r.in.str(body);
  Program p;
  VisitProgram(r, p);
  if (!r.ok) {
    if (error) *error = r.error;
    return false;
  }
  if (p.buffers.empty()) {
    if (error) *error = "no buffers";
    return false;
  }
  *out = std::move(p);
  return true;
}

}  // namespace bindery::apifuzz
