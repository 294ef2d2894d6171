#include "generator.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <optional>
#include <set>

namespace bindery::apifuzz {
namespace {

// splitmix64: the same sequence on every platform and standard library.
class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull) {}
  uint64_t Next() {
    uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  uint32_t Below(uint32_t n) { return n == 0 ? 0 : static_cast<uint32_t>(Next() % n); }
  uint32_t Range(uint32_t lo, uint32_t hi) { return hi <= lo ? lo : lo + Below(hi - lo + 1); }
  bool Chance(uint32_t percent) { return Below(100) < percent; }
  template <class T>
  const T& Pick(const std::vector<T>& v) { return v[Below(static_cast<uint32_t>(v.size()))]; }

 private:
  uint64_t s_;
};


// The stages any binding of the set layout is visible to.
uint32_t SetLayoutStages(const SetLayout& l) {
  uint32_t stages = 0;
  for (const Binding& b : l.bindings) stages |= b.stages;
  return stages;
}

constexpr uint32_t kNoSlot = UINT32_MAX;
constexpr uint32_t kPushed = UINT32_MAX - 1;  // a bound push-descriptor set

// What one bind point has bound at one set number.
struct BoundSet {
  uint32_t slot = kNoSlot;  // set slot, kPushed, or kNoSlot (nothing valid)
  uint32_t layout = 0;      // pipeline layout it was bound (or pushed) through
};

struct SlotState {
  bool allocated = false;
  uint32_t pool = 0, layout = 0;
  std::map<std::pair<uint32_t, uint32_t>, Desc> written;  // (binding, element) -> descriptor
  uint32_t variable_count = 0;  // the count given at allocation to a variable-count binding
};

class Generator {
 public:
  Generator(uint64_t seed, const Features& f)
      : r_(seed), x_(~seed), n_(seed ^ 0x6E756C6Cull), d_(seed ^ 0x6465736378ull), q_(seed ^ 0x717565756573ull),
        e_(seed ^ 0x65787465726Eull), s_(seed ^ 0x7374617473ull), m_(seed ^ 0x656E74727970ull),
        l_(seed ^ 0x6C6962726172ull), g_(seed ^ 0x7075736869676Dull), k_(seed ^ 0x7061636B6564ull),
        i_(seed ^ 0x696D67786672ull), w_(seed ^ 0x6D616E79736574ull), f_(f) {
    p_.seed = seed;
  }

  Program Run() {
    MakeBuffers();
    MakeExternalBuffers();
    MakeImages();
    MakeTransferImages();
    MakeSetLayouts();
    MakePipelineLayouts();
    MakePipelines();
    AddManySetLayout();
    ShareModules();
    ChooseLibraryModes();
    MakePools();
    p_.set_slots = r_.Range(3, 8);
    slots_.assign(p_.set_slots, SlotState{});
    // Several queues only where the device has them, from their own stream (q_): on a device
    // with one queue a seed's program is the one it was before queues were chosen.
    // Not with nullable bindings on queues shared by the test layer: their device goes
    // without it (it serves one device at a time), with one queue.
    if (f_.queues > 1 && !(f_.shared_queues && HasNullable()) && q_.Chance(60))
      p_.queues = q_.Range(2, std::min(f_.queues, 3u));
    const uint32_t batches = r_.Range(1, 3);
    for (uint32_t b = 0; b < batches; ++b) MakeBatch();
    return std::move(p_);
  }

 private:
  // ---- objects ----
  void MakeBuffers() {
    auto add = [&](Role role, uint32_t n) {
      for (uint32_t i = 0; i < n; ++i) p_.buffers.push_back({64u + 16u * r_.Below(28), role});
    };
    add(Role::kIn, r_.Range(2, 3));
    add(Role::kOut, r_.Range(1, 3));
    add(Role::kCounter, r_.Chance(50) ? 1 : 0);
  }
  // Buffers on external memory (exported, or imported from an fd), from their own stream
  // (e_), consulted only on a device with OPAQUE_FD external memory: elsewhere a seed's
  // program is the one it was before. Nothing else depends on it, so such a program is the
  // program it was with some buffers external (the same results natively).
  void MakeExternalBuffers() {
    if (!f_.external_memory || !e_.Chance(40)) return;
    for (Buffer& b : p_.buffers) {
      if (e_.Chance(35)) b.external = e_.Chance(50) ? External::kExported : External::kImported;
    }
  }
  bool HasNullable() const {
    for (const SetLayout& l : p_.set_layouts) {
      for (const Binding& b : l.bindings) {
        if (b.nullable) return true;
      }
    }
    return false;
  }
  bool HasRole(Role role) const {
    for (const Buffer& b : p_.buffers) {
      if (b.role == role) return true;
    }
    return false;
  }
  uint32_t PickBuffer(Role role) {
    std::vector<uint32_t> c;
    for (uint32_t i = 0; i < p_.buffers.size(); ++i) {
      if (p_.buffers[i].role == role) c.push_back(i);
    }
    return r_.Pick(c);
  }

  // ---- features added after the first generator version ----
  // Images, image bindings, null descriptors and secondary command buffers draw from their own
  // random streams (x_, and n_ for null descriptors), and the first stream (r_) never sees them:
  // a seed's program keeps everything the first version generated, with these added on top.
  template <class F>
  void WithExtra(F&& f) {
    std::swap(r_, x_);
    f();
    std::swap(r_, x_);
  }
  // Image transfers (--image-transfers) draw from i_, consulted only where they are on:
  // elsewhere a seed's program is the one it was before they existed.
  template <class F>
  void WithImageTransfers(F&& f) {
    std::swap(r_, i_);
    f();
    std::swap(r_, i_);
  }

  // ---- image transfers ----
  // Two to four small images of the listed formats (1D, 2D or 3D; mips; layers).
  void MakeTransferImages() {
    if (!f_.image_transfers) return;
    WithImageTransfers([&]() {
      constexpr uint32_t kFormats = sizeof(kTransferFormats) / sizeof(kTransferFormats[0]);
      for (uint32_t n = r_.Range(2, 4); n > 0; --n) {
        TransferImage t;
        t.format = kTransferFormats[r_.Below(kFormats)].format;
        const uint32_t kind = r_.Below(10);
        t.type = kind == 0 ? 0u : kind < 8 ? 1u : 2u;  // VkImageType: 1D, 2D, 3D
        t.width = r_.Range(1, 9);
        t.height = t.type == 0 ? 1 : r_.Range(1, 7);
        t.depth = t.type == 2 ? r_.Range(1, 4) : 1;
        uint32_t levels = 1;
        for (uint32_t m = std::max({t.width, t.height, t.depth}); m > 1; m >>= 1) ++levels;
        t.mips = r_.Range(1, std::min(levels, 3u));
        t.layers = t.type == 2 ? 1 : r_.Range(1, 3);
        p_.transfer_images.push_back(t);
      }
    });
  }
  static const TransferFormat& FormatOf(const TransferImage& t) {
    for (const TransferFormat& f : kTransferFormats) {
      if (f.format == t.format) return f;
    }
    return kTransferFormats[0];
  }
  static uint32_t MipSize(uint32_t extent, uint32_t mip) { return std::max(1u, extent >> mip); }
  // A box inside mip `mip` of `t`: offset and extent per axis (z: 3D slices).
  void Box(const TransferImage& t, uint32_t mip, uint32_t (&at)[3], uint32_t (&extent)[3], const uint32_t* cap) {
    const uint32_t sizes[3] = {MipSize(t.width, mip), MipSize(t.height, mip), MipSize(t.depth, mip)};
    for (int a = 0; a < 3; ++a) {
      const uint32_t limit = cap != nullptr ? std::min(sizes[a], cap[a]) : sizes[a];
      extent[a] = r_.Range(1, limit);
      at[a] = r_.Below(sizes[a] - extent[a] + 1);
    }
  }
  // Layers [base, base + count) of `t` (3D: 0, 1).
  void Layers(const TransferImage& t, uint32_t cap, uint32_t* base, uint32_t* count) {
    *base = t.type == 2 ? 0 : r_.Below(t.layers);
    *count = t.type == 2 ? 1 : r_.Range(1, std::min(t.layers - *base, cap));
  }

  Cmd MakeImageTransfer() {
    Cmd c;
    const uint32_t images = static_cast<uint32_t>(p_.transfer_images.size());
    uint32_t kind = r_.Below(5);
    c.use_template = r_.Chance(40);  // the command's 2 form
    // Pairs the copy and blit may take: two images of one type (and texel size / blit formats).
    std::vector<std::pair<uint32_t, uint32_t>> copies, blits;
    for (uint32_t a = 0; a < images; ++a) {
      for (uint32_t b = 0; b < images; ++b) {
        const TransferImage &s = p_.transfer_images[a], &d = p_.transfer_images[b];
        if (a == b || s.type != d.type) continue;
        if (FormatOf(s).texel_bytes == FormatOf(d).texel_bytes) copies.push_back({a, b});
        if (FormatOf(s).blit && FormatOf(d).blit) blits.push_back({a, b});
      }
    }
    if ((kind == 2 && copies.empty()) || (kind == 4 && blits.empty())) kind = 0;
    if (kind <= 1) {  // buffer <-> image, one region (or two at different mips)
      c.kind = kind == 0 ? CmdKind::kBufferToImage : CmdKind::kImageToBuffer;
      const uint32_t image = r_.Below(images), buffer = r_.Below(static_cast<uint32_t>(p_.buffers.size()));
      const TransferImage& t = p_.transfer_images[image];
      (kind == 0 ? c.binding : c.src) = image;
      (kind == 0 ? c.src : c.binding) = buffer;
      const uint32_t texel = FormatOf(t).texel_bytes, bytes = p_.buffers[buffer].size;
      const uint32_t regions = t.mips > 1 && r_.Chance(30) ? 2 : 1;
      const uint32_t first_mip = r_.Below(t.mips - (regions - 1));
      uint32_t used = 0;  // buffer bytes taken by the earlier region (regions must not overlap)
      for (uint32_t k = 0; k < regions; ++k) {
        const uint32_t mip = first_mip + k;
        uint32_t at[3], extent[3], base, layers;
        Box(t, mip, at, extent, nullptr);
        Layers(t, 3, &base, &layers);
        uint32_t row = r_.Chance(50) ? 0 : extent[0] + r_.Below(3);
        uint32_t height = r_.Chance(50) ? 0 : extent[1] + r_.Below(2);
        auto span = [&]() {
          const uint32_t slices = t.type == 2 ? extent[2] : layers;
          return (((slices - 1) * (height ? height : extent[1])) + (extent[1] - 1)) * (row ? row : extent[0]) * texel +
                 extent[0] * texel;
        };
        if (used + span() > bytes) {  // one row of what fits
          extent[1] = extent[2] = layers = 1;
          extent[0] = std::min(extent[0], (bytes - used) / texel);
          row = height = 0;
          if (extent[0] == 0) break;
        }
        const uint32_t s = span();
        const uint32_t offset = used + texel * r_.Below((bytes - used - s) / texel + 1);
        c.values.insert(c.values.end(), {offset, row, height, mip, base, t.type == 2 ? 1u : layers, at[0], at[1],
                                         at[2], extent[0], extent[1], extent[2]});
        used = offset + s;
        used = (used + 15) / 16 * 16;
        if (used >= bytes) break;
      }
    } else if (kind == 2) {  // image -> image
      c.kind = CmdKind::kImageToImage;
      const auto pair = r_.Pick(copies);
      c.src = pair.first;
      c.binding = pair.second;
      const TransferImage &s = p_.transfer_images[c.src], &d = p_.transfer_images[c.binding];
      const uint32_t smip = r_.Below(s.mips), dmip = r_.Below(d.mips);
      const uint32_t cap[3] = {MipSize(d.width, dmip), MipSize(d.height, dmip), MipSize(d.depth, dmip)};
      uint32_t sat[3], extent[3], dat[3];
      Box(s, smip, sat, extent, cap);
      for (int a = 0; a < 3; ++a) dat[a] = r_.Below(cap[a] - extent[a] + 1);
      uint32_t sbase, layers;
      Layers(s, d.layers, &sbase, &layers);
      const uint32_t dbase = d.type == 2 ? 0 : r_.Below(d.layers - layers + 1);
      c.values = {smip, sbase, layers, sat[0], sat[1], sat[2], dmip, dbase, dat[0], dat[1], dat[2],
                  extent[0], extent[1], extent[2]};
    } else if (kind == 3) {  // clear: one range, or two at different mips
      c.kind = CmdKind::kClearImage;
      c.binding = r_.Below(images);
      const TransferImage& t = p_.transfer_images[c.binding];
      static const float kFloats[] = {0.0f, 0.25f, 1.0f, 0.0625f, 0.375f, -0.5f, 0.75f, 1.5f};
      for (int k = 0; k < 4; ++k) {
        uint32_t word = r_.Below(256);
        if (FormatOf(t).float_clear) std::memcpy(&word, &kFloats[r_.Below(8)], 4);
        c.values.push_back(word);
      }
      const uint32_t ranges = t.mips > 1 && r_.Chance(30) ? 2 : 1;
      for (uint32_t k = 0; k < ranges; ++k) {
        const uint32_t mip = k == 0 ? r_.Below(t.mips - (ranges - 1)) : t.mips - 1;
        const uint32_t levels = ranges == 2 && k == 0 ? 1 : (r_.Chance(30) ? ~0u : r_.Range(1, t.mips - mip));
        uint32_t base, layers;
        Layers(t, 3, &base, &layers);
        if (t.type != 2 && r_.Chance(30)) layers = ~0u;  // VK_REMAINING_ARRAY_LAYERS
        c.values.insert(c.values.end(), {mip, levels, base, layers});
      }
    } else {  // blit, one region, any direction, nearest or linear
      c.kind = CmdKind::kBlitImage;
      const auto pair = r_.Pick(blits);
      c.src = pair.first;
      c.binding = pair.second;
      c.size = r_.Below(2);
      const TransferImage &s = p_.transfer_images[c.src], &d = p_.transfer_images[c.binding];
      const uint32_t smip = r_.Below(s.mips), dmip = r_.Below(d.mips);
      uint32_t sbase, layers;
      Layers(s, d.layers, &sbase, &layers);
      const uint32_t dbase = d.type == 2 ? 0 : r_.Below(d.layers - layers + 1);
      c.values = {smip, sbase, layers};
      for (const auto& [image, mip] : {std::pair{&s, smip}, std::pair{&d, dmip}}) {
        uint32_t at[3], extent[3];
        Box(*image, mip, at, extent, nullptr);
        // Mirrored along an axis now and then (z only in 3D, y not in 1D: those spans are 0..1).
        const bool flip[3] = {r_.Chance(25), image->type != 0 && r_.Chance(25), image->type == 2 && r_.Chance(25)};
        if (image == &d) c.values.insert(c.values.end(), {dmip, dbase});
        for (int corner = 0; corner < 2; ++corner) {
          for (int a = 0; a < 3; ++a) {
            const bool high = (corner == 1) != flip[a];
            c.values.push_back(at[a] + (high ? extent[a] : 0));
          }
        }
      }
    }
    return c;
  }

  // An image transfer before an action, now and then (i_ stream).
  void MaybeImageTransfer(std::vector<Cmd>& cmds) {
    if (p_.transfer_images.empty()) return;
    WithImageTransfers([&]() {
      if (r_.Chance(45)) cmds.push_back(MakeImageTransfer());
    });
  }

  // Descriptor-indexing choices (binding flags, partial and late writes, nonuniform indexing)
  // draw from d_, consulted only on a device with one of those features: elsewhere a seed's
  // program is the one it was before they existed.
  template <class F>
  void WithIndexing(F&& f) {
    std::swap(r_, d_);
    f();
    std::swap(r_, d_);
  }
  bool Indexing() const { return f_.AnyDescriptorIndexing(); }

  // Binding flags for a (non-push) set layout, where the device has the features: an
  // update-after-bind layout (its dynamic bindings become plain ones: such a layout may not
  // hold them) whose bindings mostly allow updates after bind, partially bound bindings, and
  // a variable-count last binding with a larger maximum.
  void AddIndexingFlags(SetLayout& l) {
    if (l.push || !Indexing()) return;
    bool any_uab_type = false;
    for (const Binding& b : l.bindings) {
      const DescType plain = IsDynamic(b.type) ? (IsUniform(b.type) ? DescType::kUniform : DescType::kStorage) : b.type;
      any_uab_type |= UpdateAfterBindAllowed(f_, plain);
    }
    if (any_uab_type && d_.Chance(40)) {
      l.update_after_bind = true;
      for (Binding& b : l.bindings) {
        if (IsDynamic(b.type)) b.type = IsUniform(b.type) ? DescType::kUniform : DescType::kStorage;
        if (UpdateAfterBindAllowed(f_, b.type) && d_.Chance(75)) b.flags |= kUpdateAfterBind;
      }
    }
    if (f_.partially_bound) {
      // Not dynamic ones: a bind gives every dynamic descriptor an offset checked against its buffer.
      for (Binding& b : l.bindings) {
        if (!IsDynamic(b.type) && (!IsImage(b.type) || f_.unwritten_images) && d_.Chance(30))
          b.flags |= kPartiallyBound;
      }
    }
    Binding& last = l.bindings.back();
    if (f_.variable_count && !IsDynamic(last.type) && (!IsImage(last.type) || f_.unwritten_images) && d_.Chance(30)) {
      last.flags |= kVariableCount;
      last.count = d_.Range(last.count, 4);
    }
  }
  void MakeImages() {
    // In about a third of the programs: images cost setup, upload and read-back time.
    if (!f_.images || !x_.Chance(35)) return;
    for (uint32_t i = x_.Range(1, 2); i > 0; --i) p_.images.push_back({Role::kIn});
    if (x_.Chance(70)) p_.images.push_back({Role::kOut});
    p_.samplers = x_.Range(1, 2);
  }
  bool HasImageRole(Role role) const {
    for (const Image& i : p_.images) {
      if (i.role == role) return true;
    }
    return false;
  }

  // Image bindings after the buffer bindings of a (non-push) set layout, and null-descriptor
  // permission for bindings where robustness2 allows it.
  void AddExtraBindings(SetLayout& l) {
    if (l.push && f_.push_images && !p_.images.empty() && g_.Chance(60)) AddPushImages(l);
    if (!l.push && !p_.images.empty() && x_.Chance(40)) {
      uint32_t number = l.bindings.empty() ? 0 : l.bindings.back().binding + 1;
      for (uint32_t k = x_.Range(1, 2); k > 0; --k) {
        Binding b;
        b.binding = number++;
        const uint32_t t = x_.Below(3);
        b.type = t == 0 ? DescType::kSampledImage : t == 1 ? DescType::kStorageImage : DescType::kCombinedImageSampler;
        b.role = b.type == DescType::kStorageImage && HasImageRole(Role::kOut) && x_.Chance(60) ? Role::kOut : Role::kIn;
        b.count = x_.Chance(25) ? 2 : 1;
        b.stages = x_.Chance(60) ? (kCompute | kVertex | kFragment) : 0;
        while (b.stages == 0) {
          if (x_.Chance(50)) b.stages |= kCompute;
          if (x_.Chance(50)) b.stages |= kVertex;
          if (x_.Chance(50)) b.stages |= kFragment;
        }
        l.bindings.push_back(b);
      }
    }
    if (!f_.null_descriptor) return;
    for (Binding& b : l.bindings) b.nullable = !IsDynamic(b.type) && x_.Chance(15);
  }

  // Images beside the buffers of a push-descriptor set layout (Features::push_images, the g_
  // stream only): always visible to the vertex stage, so vertex shaders read pushed images and
  // pushed uniform/storage buffers together (the image reads are the extra stream's ops).
  void AddPushImages(SetLayout& l) {
    uint32_t number = l.bindings.empty() ? 0 : l.bindings.back().binding + 1;
    for (uint32_t k = g_.Range(1, 2); k > 0; --k) {
      Binding b;
      b.binding = number++;
      const uint32_t t = g_.Below(3);
      b.type = t == 0 ? DescType::kSampledImage : t == 1 ? DescType::kStorageImage : DescType::kCombinedImageSampler;
      b.role = Role::kIn;
      b.count = g_.Chance(25) ? 2 : 1;
      b.stages = kVertex | (g_.Chance(50) ? kFragment : 0) | (g_.Chance(30) ? kCompute : 0);
      l.bindings.push_back(b);
    }
  }

  // The bindings the first stream picks from (images are the extra stream's).
  static std::vector<Binding> BufferBindings(const SetLayout& l) {
    std::vector<Binding> out;
    for (const Binding& b : l.bindings) {
      if (!IsImage(b.type)) out.push_back(b);
    }
    return out;
  }

  uint32_t ImageCount(const std::vector<uint32_t>& sets, DescType type) const {
    uint32_t n = 0;
    for (uint32_t s : sets) {
      for (const Binding& b : p_.set_layouts[s].bindings) n += b.type == type ? b.count : 0;
    }
    return n;
  }

  void MakeSetLayouts() {
    const uint32_t n = r_.Range(2, 5);
    for (uint32_t i = 0; i < n; ++i) {
      if (i > 0 && r_.Chance(25)) {  // identically defined, a separate object
        p_.set_layouts.push_back(p_.set_layouts[r_.Below(i)]);
        continue;
      }
      SetLayout l;
      l.push = f_.push_descriptor && r_.Chance(20);
      const uint32_t nb = r_.Range(1, 4);
      uint32_t number = r_.Below(2);
      for (uint32_t j = 0; j < nb; ++j) {
        Binding b;
        b.binding = number;
        number += 1 + (r_.Chance(20) ? 1 : 0);
        b.type = static_cast<DescType>(r_.Below(4));
        if (l.push && IsDynamic(b.type)) b.type = IsUniform(b.type) ? DescType::kUniform : DescType::kStorage;
        b.count = r_.Chance(30) && !IsDynamic(b.type) ? 2 : 1;
        if (IsUniform(b.type)) {
          b.role = Role::kIn;
        } else {
          const uint32_t k = r_.Below(10);
          b.role = k < 5 ? Role::kIn : (k < 8 || !HasRole(Role::kCounter)) ? Role::kOut : Role::kCounter;
        }
        b.stages = r_.Chance(60) ? (kCompute | kVertex | kFragment) : 0;
        while (b.stages == 0) {
          if (r_.Chance(50)) b.stages |= kCompute;
          if (r_.Chance(50)) b.stages |= kVertex;
          if (r_.Chance(50)) b.stages |= kFragment;
        }
        if (f_.dynamic_all_stages && IsDynamic(b.type)) b.stages = kCompute | kVertex | kFragment;
        l.bindings.push_back(b);
      }
      AddExtraBindings(l);
      AddIndexingFlags(l);
      p_.set_layouts.push_back(l);
    }
  }

  uint32_t UniformCount(const std::vector<uint32_t>& sets) const {
    uint32_t n = 0;
    for (uint32_t s : sets) {
      for (const Binding& b : p_.set_layouts[s].bindings) n += IsUniform(b.type) ? b.count : 0;
    }
    return n;
  }

  void MakePipelineLayouts() {
    const uint32_t n = r_.Range(2, 4);
    for (uint32_t i = 0; i < n; ++i) {
      PipelineLayout l;
      const bool share = i > 0 && r_.Chance(60);
      if (share) {  // a prefix of an earlier layout: compatible for those sets (if the pushes match)
        const PipelineLayout& base = p_.pipeline_layouts[r_.Below(i)];
        l.sets.assign(base.sets.begin(), base.sets.begin() + r_.Range(1, static_cast<uint32_t>(base.sets.size())));
        if (r_.Chance(70)) l.push = base.push;
      }
      const uint32_t want = r_.Range(1, 3);
      while (l.sets.size() < want) l.sets.push_back(r_.Below(static_cast<uint32_t>(p_.set_layouts.size())));
      // At most one push-descriptor set; keep within the per-stage uniform-buffer limit.
      bool has_push = false;
      for (size_t s = 0; s < l.sets.size(); ++s) {
        if (!p_.set_layouts[l.sets[s]].push) continue;
        if (has_push) {
          l.sets.resize(s);
          break;
        }
        has_push = true;
      }
      while (l.sets.size() > 1 && UniformCount(l.sets) > 12) l.sets.pop_back();
      // Within the per-stage image limits (never reached on the devices seen so far).
      while (l.sets.size() > 1 && (ImageCount(l.sets, DescType::kStorageImage) > f_.max_storage_images ||
                                   ImageCount(l.sets, DescType::kSampledImage) +
                                           ImageCount(l.sets, DescType::kCombinedImageSampler) >
                                       f_.max_sampled_images))
        l.sets.pop_back();
      if (UniformCount(l.sets) > 12) l.sets = {FirstSetWithFewUniforms()};
      if (!share || (l.push.empty() && r_.Chance(50))) {
        // No stage may be in two ranges (VUID-VkPipelineLayoutCreateInfo-pPushConstantRanges-00292).
        const uint32_t ranges = r_.Below(3);
        uint32_t offset = 4 * r_.Below(3), used = 0;
        for (uint32_t k = 0; k < ranges; ++k) {
          const uint32_t size = 4 * r_.Range(1, 6);
          if (offset + size > f_.max_push_constants) break;
          std::vector<uint32_t> choices;
          for (uint32_t c : {kCompute, kVertex, kFragment, kVertex | kFragment, kCompute | kVertex | kFragment}) {
            if (!(c & used)) choices.push_back(c);
          }
          if (choices.empty()) break;
          l.push.push_back({r_.Pick(choices), offset, size});
          used |= l.push.back().stages;
          offset += size + 4 * r_.Below(2);
        }
      }
      p_.pipeline_layouts.push_back(l);
    }
  }
  uint32_t FirstSetWithFewUniforms() {
    for (uint32_t s = 0; s < p_.set_layouts.size(); ++s) {
      if (UniformCount({s}) <= 12) return s;
    }
    p_.set_layouts.push_back(SetLayout{false, false, {Binding{0, DescType::kStorage, 1, Role::kIn, kCompute | kVertex | kFragment}}});
    return static_cast<uint32_t>(p_.set_layouts.size() - 1);
  }

  Stage MakeStage(const PipelineLayout& layout, uint32_t stage) {
    Stage s;
    s.stage = stage;
    struct Candidate {
      uint32_t set;
      const Binding* b;
    };
    std::vector<Candidate> cands;
    std::vector<Candidate> image_cands;
    for (uint32_t set = 0; set < layout.sets.size(); ++set) {
      for (const Binding& b : p_.set_layouts[layout.sets[set]].bindings) {
        if (b.stages & stage) (IsImage(b.type) ? image_cands : cands).push_back({set, &b});
      }
    }
    std::vector<uint32_t> words;
    for (const PushRange& pr : layout.push) {
      if (pr.stages & stage) {
        for (uint32_t w = pr.offset; w < pr.offset + pr.size; w += 4) words.push_back(w);
      }
    }
    const uint32_t n = r_.Range(2, 9);
    for (uint32_t i = 0; i < n; ++i) {
      ShaderOp op;
      if (!words.empty() && (cands.empty() || r_.Chance(20))) {
        op.kind = OpKind::kPush;
        op.index = r_.Pick(words);
        s.ops.push_back(op);
        continue;
      }
      if (cands.empty()) break;
      const Candidate& c = r_.Pick(cands);
      op.set = c.set;
      op.binding = c.b->binding;
      op.element = r_.Below(c.b->count);
      op.dynamic_element = c.b->count > 1 && f_.array_dynamic_indexing && r_.Chance(40);
      op.nonuniform = op.dynamic_element && NonUniformAllowed(f_, c.b->type) && d_.Chance(60);
      op.index = r_.Below(64);
      op.value = r_.Range(1, 1000);
      const bool length = !IsUniform(c.b->type) && r_.Chance(15);
      switch (c.b->role) {
        case Role::kIn: op.kind = length ? OpKind::kLength : OpKind::kRead; break;
        case Role::kOut: op.kind = length || stage == kFragment ? OpKind::kLength : OpKind::kWrite; break;
        case Role::kCounter: op.kind = length || stage != kCompute ? OpKind::kLength : OpKind::kAtomic; break;
      }
      s.ops.push_back(op);
    }
    // Packed copies (their own stream), each right after a read of its source: a kIn storage
    // binding into a kOut one, in compute and vertex stages (stores are not made in fragment
    // shaders).
    if (f_.packed_copies && stage != kFragment && k_.Chance(80)) {
      std::vector<Candidate> sources, targets;
      for (const Candidate& c : cands) {
        // Not dynamic buffers: with OpArrayLength or bounds checks their pipelines run natively.
        if (c.b->type != DescType::kStorage) continue;
        if (c.b->role == Role::kIn) sources.push_back(c);
        if (c.b->role == Role::kOut) targets.push_back(c);
      }
      if (!sources.empty() && !targets.empty()) {
        for (uint32_t k = k_.Range(1, 2); k > 0; --k) {
          const Candidate& from = k_.Pick(sources);
          const Candidate& to = k_.Pick(targets);
          ShaderOp read;
          read.kind = OpKind::kRead;
          read.set = from.set;
          read.binding = from.b->binding;
          read.element = k_.Below(from.b->count);
          read.index = k_.Below(64);
          ShaderOp copy;
          copy.kind = OpKind::kCopyPacked;
          copy.set = to.set;
          copy.binding = to.b->binding;
          copy.element = k_.Below(to.b->count);
          copy.index = k_.Below(64);
          copy.value = k_.Chance(70) ? 0 : 1;  // float16 words, or bytes
          const uint32_t at = k_.Below(static_cast<uint32_t>(s.ops.size()) + 1);
          s.ops.insert(s.ops.begin() + at, copy);
          s.ops.insert(s.ops.begin() + at, read);
        }
      }
    }
    // Image operations (extra stream), at random places among the others.
    if (!image_cands.empty()) {
      for (uint32_t k = x_.Range(1, 3); k > 0; --k) {
        const Candidate& c = x_.Pick(image_cands);
        ShaderOp op;
        op.set = c.set;
        op.binding = c.b->binding;
        op.element = x_.Below(c.b->count);
        op.index = x_.Below(64);
        const bool length = x_.Chance(20);
        if (c.b->role == Role::kIn) op.kind = length ? OpKind::kLength : OpKind::kRead;
        else op.kind = length || stage == kFragment ? OpKind::kLength : OpKind::kWrite;
        s.ops.insert(s.ops.begin() + x_.Below(static_cast<uint32_t>(s.ops.size()) + 1), op);
      }
    }
    return s;
  }

  void MakePipelines() {
    const uint32_t n = r_.Range(2, 5);
    for (uint32_t i = 0; i < n; ++i) {
      Pipeline pl;
      pl.layout = r_.Below(static_cast<uint32_t>(p_.pipeline_layouts.size()));
      pl.graphics = r_.Chance(40);
      const PipelineLayout& layout = p_.pipeline_layouts[pl.layout];
      if (pl.graphics) {
        pl.stages.push_back(MakeStage(layout, kVertex));
        pl.stages.push_back(MakeStage(layout, kFragment));
      } else {
        const uint32_t sizes[] = {1, 2, 4, 8};
        pl.local_size = sizes[r_.Below(4)];
        pl.dispatch_base = r_.Chance(30);
        pl.stages.push_back(MakeStage(layout, kCompute));
      }
      p_.pipelines.push_back(pl);
    }
  }

  // Issue 30 (Features::many_sets, from its own stream w_; the first stream is not consulted,
  // so the program is the one it was with this layout and pipeline added): a pipeline layout
  // extending an earlier one (so compatible with it for its sets, with its push-constant
  // ranges) to as many sets as the device binds, at most 8, drawn from one or two set
  // layouts — those with an image (a descriptor that stays native under Bindery) where there
  // are such — within the per-stage limits; and a pipeline of it. The conformance suite's
  // descriptorset_random.sets8 shape: with the split root forced on lavapipe its root fits
  // neither push constants nor a reserved set (docs/indirect-bindings.md, "The root").
  void AddManySetLayout() {
    if (!f_.many_sets || p_.pipeline_layouts.empty() || !w_.Chance(60)) return;
    const uint32_t want = std::min(f_.max_bound_sets, 8u);
    // Mostly a layout with push constants: the root then starts after them, and eight sets'
    // addresses no longer fit in half of lavapipe's 128 bytes.
    std::vector<uint32_t> with_push;
    for (uint32_t i = 0; i < p_.pipeline_layouts.size(); ++i)
      if (!p_.pipeline_layouts[i].push.empty()) with_push.push_back(i);
    PipelineLayout l = p_.pipeline_layouts[!with_push.empty() && w_.Chance(80)
                                               ? w_.Pick(with_push)
                                               : w_.Below(static_cast<uint32_t>(p_.pipeline_layouts.size()))];
    std::vector<uint32_t> native, plain;
    std::vector<bool> has_image(p_.set_layouts.size(), false);
    for (uint32_t i = 0; i < p_.set_layouts.size(); ++i) {
      const SetLayout& sl = p_.set_layouts[i];
      for (const Binding& b : sl.bindings) has_image[i] = has_image[i] || IsImage(b.type);
      if (!sl.push) (has_image[i] ? native : plain).push_back(i);
    }
    // Its sets up to the first without an image (the layouts stay compatible for those): a
    // set without a native descriptor leaves the driver a set for the reserved one.
    for (size_t k = 0; k < l.sets.size(); ++k) {
      if (has_image[l.sets[k]] && !p_.set_layouts[l.sets[k]].push) continue;
      if (w_.Chance(70)) l.sets.resize(k);
      break;
    }
    if (l.sets.size() >= want) return;
    if (native.empty() && !p_.images.empty() && w_.Chance(70)) {
      // A set layout of its own with an image beside a buffer, so that the sets keep a
      // native descriptor each (the program has images to write there).
      SetLayout sl;
      sl.bindings.push_back(Binding{0, DescType::kStorage, 1, Role::kIn, kCompute | kVertex | kFragment});
      sl.bindings.push_back(Binding{1, DescType::kSampledImage, 1, Role::kIn, kCompute | kVertex | kFragment});
      p_.set_layouts.push_back(sl);
      native.push_back(static_cast<uint32_t>(p_.set_layouts.size() - 1));
    }
    const std::vector<uint32_t>& from = native.empty() || (!plain.empty() && w_.Chance(15)) ? plain : native;
    if (from.empty()) return;
    const uint32_t first = w_.Pick(from), second = w_.Pick(from);
    while (l.sets.size() < want) l.sets.push_back(w_.Chance(70) ? first : second);
    if (!WithinStageLimits(l.sets)) return;
    p_.pipeline_layouts.push_back(l);
    Pipeline pl;
    pl.layout = static_cast<uint32_t>(p_.pipeline_layouts.size() - 1);
    std::swap(r_, w_);  // the stages' choices from this stream too
    pl.graphics = r_.Chance(40);
    if (pl.graphics) {
      pl.stages.push_back(MakeStage(p_.pipeline_layouts[pl.layout], kVertex));
      pl.stages.push_back(MakeStage(p_.pipeline_layouts[pl.layout], kFragment));
    } else {
      const uint32_t sizes[] = {1, 2, 4, 8};
      pl.local_size = sizes[r_.Below(4)];
      pl.dispatch_base = r_.Chance(30);
      pl.stages.push_back(MakeStage(p_.pipeline_layouts[pl.layout], kCompute));
    }
    std::swap(r_, w_);
    p_.pipelines.push_back(pl);
  }
  // Every binding counted in every stage (conservative): this generator's 12 uniform
  // buffers, 24 storage buffers (every device it runs on allows 32 per stage), the spec's
  // minimum of dynamic buffers per layout (8 uniform, 4 storage: the H100 allows 15 and 16,
  // and eight sets repeat a set's dynamic bindings eight times), and the images' limits.
  bool WithinStageLimits(const std::vector<uint32_t>& sets) const {
    uint32_t storage = 0, storage_dynamic = 0, uniform_dynamic = 0;
    for (uint32_t s : sets) {
      for (const Binding& b : p_.set_layouts[s].bindings) {
        storage += b.type == DescType::kStorage || b.type == DescType::kStorageDynamic ? b.count : 0;
        storage_dynamic += b.type == DescType::kStorageDynamic ? b.count : 0;
        uniform_dynamic += b.type == DescType::kUniformDynamic ? b.count : 0;
      }
    }
    return UniformCount(sets) <= 12 && storage <= 24 && storage_dynamic <= 4 && uniform_dynamic <= 8 &&
           ImageCount(sets, DescType::kStorageImage) <= f_.max_storage_images &&
           ImageCount(sets, DescType::kSampledImage) + ImageCount(sets, DescType::kCombinedImageSampler) <=
               f_.max_sampled_images;
  }

  // Modules of several entry points (Stage::module), from their own stream (m_), consulted
  // only where the generator may make them (Features::multi_entry_modules): elsewhere a
  // seed's program is the one it was before. Stages of any pipelines, of any kinds, are put
  // together (two compute stages, a graphics pipeline's vertex and fragment stages, stages
  // of different pipelines); each keeps its own GLSL and so its own push-constant block.
  void ShareModules() {
    if (!f_.multi_entry_modules || !m_.Chance(40)) return;
    std::vector<std::pair<uint32_t, uint32_t>> stages;  // (pipeline, stage)
    for (uint32_t i = 0; i < p_.pipelines.size(); ++i)
      for (uint32_t j = 0; j < p_.pipelines[i].stages.size(); ++j) stages.push_back({i, j});
    for (uint32_t module = 0, modules = m_.Range(1, 2); module < modules && stages.size() >= 2; ++module) {
      bool vertex = false;
      for (uint32_t k = m_.Range(2, std::min<uint32_t>(3, static_cast<uint32_t>(stages.size()))); k > 0; --k) {
        const uint32_t at = m_.Below(static_cast<uint32_t>(stages.size()));
        Stage& stage = p_.pipelines[stages[at].first].stages[stages[at].second];
        // One vertex stage per module: the validation layer of Debian 12 (1.3.239) reports
        // VUID-VkGraphicsPipelineCreateInfo-Vertex-07722 (PointSize not written) for a
        // second vertex entry point of a module, whose gl_PerVertex type the linker shares
        // with the first (spirv-val accepts the module).
        if (stage.stage == kVertex && vertex) continue;
        vertex = vertex || stage.stage == kVertex;
        stage.module = module;
        stages.erase(stages.begin() + at);
      }
    }
  }
  // Graphics pipelines linked from libraries (Pipeline::library), from their own stream
  // (l_), consulted only on a device with graphics pipeline libraries.
  void ChooseLibraryModes() {
    if (!f_.pipeline_library) return;
    for (Pipeline& pl : p_.pipelines) {
      if (pl.graphics && l_.Chance(50))
        pl.library = static_cast<LibraryMode>(l_.Range(1, static_cast<uint32_t>(LibraryMode::kCount) - 1));
      if (f_.fragment_library_crashes && pl.library != LibraryMode::kFragmentInPipeline)
        pl.library = LibraryMode::kMonolithic;
    }
  }

  void MakePools() {
    const uint32_t n = r_.Range(1, 2);
    for (uint32_t i = 0; i < n; ++i) p_.pools.push_back({r_.Range(2, 6), r_.Chance(50)});
    if (!Indexing()) return;
    // Sets of update-after-bind layouts come from update-after-bind pools (others may too).
    bool uab_layouts = false;
    for (const SetLayout& l : p_.set_layouts) uab_layouts |= l.update_after_bind;
    for (Pool& pool : p_.pools) pool.update_after_bind = d_.Chance(uab_layouts ? 60 : 20);
    if (uab_layouts) p_.pools[d_.Below(static_cast<uint32_t>(p_.pools.size()))].update_after_bind = true;
  }

  // ---- descriptors ----
  Desc MakeDesc(const Binding& b) {
    Desc d = IsImage(b.type) ? MakeImageDesc(b) : MakeBufferDesc(b);
    if (b.nullable && n_.Chance(25)) d = {kNullDesc, b.type == DescType::kCombinedImageSampler ? d.offset : 0, 0};
    return d;
  }
  Desc MakeImageDesc(const Binding& b) {
    Desc d;
    std::vector<uint32_t> c;
    for (uint32_t i = 0; i < p_.images.size(); ++i) {
      if (p_.images[i].role == b.role) c.push_back(i);
    }
    d.buffer = r_.Pick(c);
    if (b.type == DescType::kCombinedImageSampler) d.offset = r_.Below(p_.samplers);
    return d;
  }
  Desc MakeBufferDesc(const Binding& b) {
    Desc d;
    d.buffer = PickBuffer(b.role);
    const uint32_t size = p_.buffers[d.buffer].size;
    const uint32_t align = IsUniform(b.type) ? f_.uniform_alignment : f_.storage_alignment;
    const uint32_t min_range = 64;
    const uint32_t max_offset = (size - min_range) / align;
    d.offset = align * r_.Below(std::min(max_offset, 4u) + 1);
    const bool whole = !IsDynamic(b.type) && r_.Chance(40);
    if (!whole) {
      const uint32_t room = size - d.offset;
      d.range = min_range + 4 * r_.Below((room - min_range) / 4 + 1);
      if (IsDynamic(b.type)) d.range = std::min(d.range, min_range + 4 * r_.Below(8));
    }
    return d;
  }

  const SetLayout& SlotLayout(uint32_t slot) const { return p_.set_layouts[slots_[slot].layout]; }

  // Descriptors a set's binding has: the variable count given at allocation, or the layout's.
  uint32_t SlotCount(uint32_t slot, const Binding& b) const {
    return (b.flags & kVariableCount) ? slots_[slot].variable_count : b.count;
  }

  // A copy keeps to one kind of set: from an update-after-bind layout or pool only into one,
  // from another only into another.
  bool CopyAllowed(uint32_t src, uint32_t dst) const {
    return SlotLayout(src).update_after_bind == SlotLayout(dst).update_after_bind &&
           p_.pools[slots_[src].pool].update_after_bind == p_.pools[slots_[dst].pool].update_after_bind;
  }

  bool FullyWritten(uint32_t slot) const {
    for (const Binding& b : SlotLayout(slot).bindings) {
      for (uint32_t e = 0; e < SlotCount(slot, b); ++e) {
        if (!slots_[slot].written.count({b.binding, e})) return false;
      }
    }
    return true;
  }

  // Whether `slot`, bound at set number `set` for `pipeline`, has every descriptor the
  // pipeline may use written: every one of a binding that is not partially bound, and of a
  // partially bound one those its shaders name (a dynamic index evaluates to the named
  // element). A variable-count binding's elements past the set's count do not exist.
  bool ReadyFor(uint32_t slot, uint32_t pipeline, uint32_t set) const {
    const SlotState& st = slots_[slot];
    for (const Binding& b : SlotLayout(slot).bindings) {
      if (!(b.flags & kPartiallyBound)) {
        for (uint32_t e = 0; e < SlotCount(slot, b); ++e) {
          if (!st.written.count({b.binding, e})) return false;
        }
      }
      for (const Stage& stage : p_.pipelines[pipeline].stages) {
        for (const ShaderOp& op : stage.ops) {
          if (op.kind != OpKind::kPush && op.set == set && op.binding == b.binding &&
              !st.written.count({b.binding, op.element}))
            return false;
        }
      }
    }
    return true;
  }

  void WriteBinding(uint32_t slot, const Binding& b, uint32_t first, uint32_t count) {
    Step s;
    s.kind = StepKind::kWrite;
    s.slot = slot;
    s.binding = b.binding;
    s.element = first;
    s.use_template = r_.Chance(30);
    for (uint32_t e = first; e < first + count; ++e) {
      s.descs.push_back(MakeDesc(b));
      slots_[slot].written[{b.binding, e}] = s.descs.back();
    }
    p_.steps.push_back(s);
  }

  void HostDescriptorWork() {
    // Free / reset.
    if (r_.Chance(25)) {
      Step s;
      s.kind = StepKind::kResetPool;
      s.pool = r_.Below(static_cast<uint32_t>(p_.pools.size()));
      for (SlotState& st : slots_) {
        if (st.allocated && st.pool == s.pool) st = SlotState{};
      }
      p_.steps.push_back(s);
    }
    for (uint32_t slot = 0; slot < slots_.size(); ++slot) {
      if (slots_[slot].allocated && p_.pools[slots_[slot].pool].free_bit && r_.Chance(20)) {
        Step s;
        s.kind = StepKind::kFree;
        s.slot = slot;
        slots_[slot] = SlotState{};
        p_.steps.push_back(s);
      }
    }
    // Allocate and fully write sets of (non-push) layouts, within pool capacity.
    std::vector<uint32_t> normal;
    for (uint32_t i = 0; i < p_.set_layouts.size(); ++i) {
      if (!p_.set_layouts[i].push) normal.push_back(i);
    }
    for (uint32_t slot = 0; slot < slots_.size() && !normal.empty(); ++slot) {
      if (slots_[slot].allocated || r_.Chance(20)) continue;
      const uint32_t pool = r_.Below(static_cast<uint32_t>(p_.pools.size()));
      uint32_t live = 0;
      for (const SlotState& st : slots_) live += st.allocated && st.pool == pool ? 1 : 0;
      if (live >= p_.pools[pool].max_sets) continue;
      Step s;
      s.kind = StepKind::kAlloc;
      s.pool = pool;
      // Mostly a layout no live set has yet, so that more pipelines can run.
      std::vector<uint32_t> missing;
      for (uint32_t l : normal) {
        bool has = false;
        for (const SlotState& st : slots_) has |= st.allocated && SameSetLayout(p_.set_layouts[st.layout], p_.set_layouts[l]);
        if (!has) missing.push_back(l);
      }
      s.layout = !missing.empty() && r_.Chance(80) ? r_.Pick(missing) : r_.Pick(normal);
      s.slot = slot;
      if (p_.set_layouts[s.layout].update_after_bind && !p_.pools[pool].update_after_bind) {
        // Another pool, one that allows update-after-bind layouts, if it has room.
        std::vector<uint32_t> uab;
        for (uint32_t i = 0; i < p_.pools.size(); ++i) {
          if (p_.pools[i].update_after_bind) uab.push_back(i);
        }
        s.pool = d_.Pick(uab);
        live = 0;
        for (const SlotState& st : slots_) live += st.allocated && st.pool == s.pool ? 1 : 0;
        if (live >= p_.pools[s.pool].max_sets) continue;
      }
      slots_[slot] = SlotState{true, s.pool, s.layout, {}};
      for (const Binding& b : p_.set_layouts[s.layout].bindings) {
        if (b.flags & kVariableCount) {
          s.count = d_.Chance(10) ? 0 : d_.Range(1, b.count);
          slots_[slot].variable_count = s.count;
        }
      }
      p_.steps.push_back(s);
      for (const Binding& b : p_.set_layouts[s.layout].bindings) {
        if (b.flags & (kPartiallyBound | kVariableCount)) {
          // Some elements of a partially bound binding stay unwritten (a consecutive run is
          // written, or none); a variable-count one has the set's count.
          WithIndexing([&]() {
            const uint32_t count = SlotCount(slot, b);
            if (count == 0) return;
            uint32_t first = 0, n = count;
            if ((b.flags & kPartiallyBound) && r_.Chance(60)) {
              first = r_.Below(count);
              n = r_.Below(count - first + 1);
            }
            if (n > 0) WriteBinding(slot, b, first, n);
          });
          continue;
        }
        auto write = [&]() {
          if (b.count > 1 && r_.Chance(40)) {
            WriteBinding(slot, b, 0, 1);
            WriteBinding(slot, b, 1, b.count - 1);
          } else {
            WriteBinding(slot, b, 0, b.count);
          }
        };
        if (IsImage(b.type)) WithExtra(write);
        else write();
      }
    }
    // Rewrites and copies between written sets.
    for (uint32_t k = r_.Below(4); k > 0; --k) {
      const uint32_t dst = r_.Below(p_.set_slots);
      if (!slots_[dst].allocated) continue;
      const std::vector<Binding> buffer_bindings = BufferBindings(SlotLayout(dst));
      if (buffer_bindings.empty()) continue;
      const Binding& b = r_.Pick(buffer_bindings);
      const uint32_t dst_count = SlotCount(dst, b);
      if (dst_count == 0) continue;
      if (r_.Chance(50)) {
        const uint32_t first = r_.Below(dst_count);
        WriteBinding(dst, b, first, r_.Range(1, dst_count - first));
        continue;
      }
      // Copy from another set with a binding of the same type and role.
      for (uint32_t src = 0; src < slots_.size(); ++src) {
        if (!slots_[src].allocated || src == dst || !FullyWritten(src) || !CopyAllowed(src, dst)) continue;
        const Binding* sb = nullptr;
        for (const Binding& c : SlotLayout(src).bindings) {
          // A possibly null descriptor only into a binding whose shaders allow null.
          if (c.type == b.type && c.role == b.role && (!c.nullable || b.nullable)) sb = &c;
        }
        if (sb == nullptr || SlotCount(src, *sb) == 0) continue;
        CopyElements(dst, b, dst_count, src, *sb);
        break;
      }
    }
    // Rewrites of image bindings (extra stream).
    WithExtra([&]() {
      if (p_.images.empty() || !r_.Chance(30)) return;
      const uint32_t dst = r_.Below(p_.set_slots);
      if (!slots_[dst].allocated) return;
      std::vector<Binding> image_bindings;
      for (const Binding& b : SlotLayout(dst).bindings) {
        if (IsImage(b.type)) image_bindings.push_back(b);
      }
      if (image_bindings.empty()) return;
      const Binding b = r_.Pick(image_bindings);
      const uint32_t count = SlotCount(dst, b);
      if (count == 0) return;
      const uint32_t first = r_.Below(count);
      WriteBinding(dst, b, first, r_.Range(1, count - first));
    });
  }

  // ---- commands ----
  struct BindPoint {
    std::optional<uint32_t> pipeline;
    std::vector<BoundSet> sets;
  };
  struct CmdState {
    BindPoint bp[2];  // compute, graphics
    std::optional<uint32_t> push_layout;  // layout of the last full push of every range
  };

  // Binding through `layout` at [first, first + count): the spec's disturbance rule.
  void ApplyBind(BindPoint& bp, uint32_t layout, uint32_t first, const std::vector<uint32_t>& slots) {
    if (bp.sets.size() < first + slots.size()) bp.sets.resize(first + slots.size());
    for (uint32_t i = 0; i < bp.sets.size(); ++i) {
      if (i >= first && i < first + slots.size()) {
        bp.sets[i] = {slots[i - first], layout};
      } else if (bp.sets[i].slot != kNoSlot && !Compatible(p_, bp.sets[i].layout, layout, i)) {
        bp.sets[i].slot = kNoSlot;
      }
    }
  }

  std::vector<uint32_t> DynamicOffsets(const std::vector<uint32_t>& slots) {
    std::vector<uint32_t> out;
    for (uint32_t slot : slots) {
      for (const Binding& b : SlotLayout(slot).bindings) {
        if (!IsDynamic(b.type)) continue;
        for (uint32_t e = 0; e < b.count; ++e) {
          const Desc& d = slots_[slot].written.at({b.binding, e});
          const uint32_t align = IsUniform(b.type) ? f_.uniform_alignment : f_.storage_alignment;
          const uint32_t room = p_.buffers[d.buffer].size - d.offset - d.range;
          out.push_back(align * r_.Below(std::min(room / align, 3u) + 1));
        }
      }
    }
    return out;
  }

  // lavapipe (Mesa 22.3) handles a push at COMPUTE twice: once for the compute stage, then,
  // with the per-stage counts of the pushing layout's earlier sets added a second time (twice
  // in all where the set layout names COMPUTE), for every graphics stage the set layout names.
  // A FRAGMENT descriptor's index there can pass the end of lavapipe's per-stage array of its
  // kind (16 uniform buffers) and spill into the next stage's, which is COMPUTE's: the push
  // overwrites a compute uniform buffer of any set, read by the dispatch natively, against
  // the spec (seeds 75264, 105998: set 0 binding 4 element 0 read as the push's element 1;
  // each prediction of this count holds, docs/apifuzz.md). Whether the push of set `set`
  // through `layout` reaches that far, per kind (32 for the kinds other than uniform
  // buffers: no larger than lavapipe's arrays for them, so the rule errs on avoiding).
  bool ComputePushSpillsIntoCompute(uint32_t layout, uint32_t set) const {
    const PipelineLayout& pl = p_.pipeline_layouts[layout];
    const SetLayout& pushed = p_.set_layouts[pl.sets[set]];
    enum { kUbo, kSsbo, kStorageImage, kSamplerView, kSampler, kKinds };
    auto add = [](const SetLayout& l, std::array<uint32_t, kKinds>& n) {
      for (const Binding& b : l.bindings) {
        if (!(b.stages & kFragment)) continue;
        switch (b.type) {
          case DescType::kUniform: case DescType::kUniformDynamic: n[kUbo] += b.count; break;
          case DescType::kStorage: case DescType::kStorageDynamic: n[kSsbo] += b.count; break;
          case DescType::kStorageImage: n[kStorageImage] += b.count; break;
          case DescType::kSampledImage: n[kSamplerView] += b.count; break;
          case DescType::kCombinedImageSampler: n[kSamplerView] += b.count; n[kSampler] += b.count; break;
        }
      }
    };
    std::array<uint32_t, kKinds> earlier{}, own{};
    for (uint32_t n = 0; n < set; ++n) add(p_.set_layouts[pl.sets[n]], earlier);
    add(pushed, own);
    const uint32_t times = (SetLayoutStages(pushed) & kCompute) ? 2 : 1;
    for (int k = 0; k < kKinds; ++k) {
      const uint32_t limit = k == kUbo ? 16 : 32;
      if (own[k] != 0 && times * earlier[k] + own[k] > limit) return true;
    }
    return false;
  }

  // Pushes every binding of a push-descriptor set (in one or two pushes).
  void PushSet(std::vector<Cmd>& cmds, bool graphics, uint32_t layout, uint32_t set) {
    const SetLayout& sl = p_.set_layouts[p_.pipeline_layouts[layout].sets[set]];
    const size_t split = sl.bindings.size() > 1 && r_.Chance(30) ? r_.Range(1, uint32_t(sl.bindings.size() - 1)) : 0;
    const bool tmpl = r_.Chance(40);
    for (size_t i = 0; i < sl.bindings.size(); ++i) {
      const Binding& b = sl.bindings[i];
      Cmd c;
      c.kind = CmdKind::kPushDescriptors;
      c.graphics = graphics;
      c.layout = layout;
      c.first = set;
      c.binding = b.binding;
      c.use_template = tmpl && split == 0;
      for (uint32_t e = 0; e < b.count; ++e) c.descs.push_back(MakeDesc(b));
      // Consecutive bindings go in one command (one write each) unless split here.
      if (!cmds.empty() && i > 0 && i != split && cmds.back().kind == CmdKind::kPushDescriptors &&
          cmds.back().layout == layout && cmds.back().first == set) {
        Cmd& prev = cmds.back();
        prev.values.push_back(b.binding);  // further bindings of the same push, in order
        prev.values.push_back(static_cast<uint32_t>(c.descs.size()));
        prev.descs.insert(prev.descs.end(), c.descs.begin(), c.descs.end());
        continue;
      }
      c.values = {b.binding, static_cast<uint32_t>(c.descs.size())};
      cmds.push_back(c);
    }
  }

  // Whether every (non-push) set of the pipeline's layout has a live, fully written set.
  bool HasSetsFor(uint32_t pipeline) const {
    const PipelineLayout& layout = p_.pipeline_layouts[p_.pipelines[pipeline].layout];
    for (uint32_t number = 0; number < layout.sets.size(); ++number) {
      const uint32_t set = layout.sets[number];
      if (p_.set_layouts[set].push) continue;
      bool found = false;
      for (uint32_t slot = 0; slot < slots_.size() && !found; ++slot) {
        found = slots_[slot].allocated && SameSetLayout(SlotLayout(slot), p_.set_layouts[set]) &&
                ReadyFor(slot, pipeline, number);
      }
      if (!found) return false;
    }
    return true;
  }

  // Makes every set `pipeline` uses valid on its bind point; false if no set can be found.
  bool PrepareSets(std::vector<Cmd>& cmds, CmdState& st, uint32_t pipeline) {
    const Pipeline& pl = p_.pipelines[pipeline];
    BindPoint& bp = st.bp[pl.graphics ? 1 : 0];
    const PipelineLayout& layout = p_.pipeline_layouts[pl.layout];
    for (uint32_t set = 0; set < layout.sets.size(); ++set) {
      if (set < bp.sets.size() && bp.sets[set].slot != kNoSlot && Compatible(p_, bp.sets[set].layout, pl.layout, set) &&
          (bp.sets[set].slot == kPushed || ReadyFor(bp.sets[set].slot, pipeline, set)) && r_.Chance(85))
        continue;
      // Any layout compatible with the pipeline's for this set may be the one binding it.
      std::vector<uint32_t> through;
      for (uint32_t l = 0; l < p_.pipeline_layouts.size(); ++l) {
        if (Compatible(p_, l, pl.layout, set)) through.push_back(l);
      }
      const uint32_t via = r_.Chance(60) ? pl.layout : r_.Pick(through);
      if (p_.set_layouts[layout.sets[set]].push) {
        if (f_.compute_push_reaches_graphics_sets && !pl.graphics && ComputePushSpillsIntoCompute(via, set))
          return false;
        PushSet(cmds, pl.graphics, via, set);
        ApplyBind(bp, via, set, {kPushed});
        // lavapipe (Mesa 22.3) applies a push to every stage of the set layout, whatever
        // the bind point: a push at one changes what the other reads natively from that set
        // number on (pushed or bound sets), against the spec. The other bind point's pushed
        // sets and its sets from that number on count as gone, so it binds or pushes them
        // again before it uses them. A compute push reaching a graphics stage may land on a
        // lower graphics set number as well (lavapipe numbers it through the pushing
        // layout's earlier sets): there every graphics set counts as gone.
        const bool every_set = f_.compute_push_reaches_graphics_sets && !pl.graphics &&
                               (SetLayoutStages(p_.set_layouts[layout.sets[set]]) & (kVertex | kFragment)) != 0;
        std::vector<BoundSet>& other = st.bp[pl.graphics ? 0 : 1].sets;
        for (uint32_t n = 0; n < other.size(); ++n) {
          if (every_set || other[n].slot == kPushed || n >= set) other[n].slot = kNoSlot;
        }
        continue;
      }
      std::vector<uint32_t> usable;
      for (uint32_t slot = 0; slot < slots_.size(); ++slot) {
        if (slots_[slot].allocated && SameSetLayout(SlotLayout(slot), p_.set_layouts[layout.sets[set]]) &&
            ReadyFor(slot, pipeline, set))
          usable.push_back(slot);
      }
      if (usable.empty()) return false;
      Cmd c;
      c.kind = CmdKind::kBindSets;
      c.graphics = pl.graphics;
      c.layout = via;
      c.first = set;
      c.sets = {r_.Pick(usable)};
      c.values = DynamicOffsets(c.sets);
      cmds.push_back(c);
      ApplyBind(bp, via, set, c.sets);
    }
    return true;
  }

  void PreparePush(std::vector<Cmd>& cmds, CmdState& st, uint32_t layout_index) {
    const PipelineLayout& layout = p_.pipeline_layouts[layout_index];
    if (layout.push.empty()) return;
    if (st.push_layout && SamePush(p_.pipeline_layouts[*st.push_layout], layout) && r_.Chance(70)) return;
    for (const PushRange& pr : layout.push) {
      Cmd c;
      c.kind = CmdKind::kPushConstants;
      c.layout = layout_index;
      c.stages = pr.stages;
      c.first = pr.offset;
      for (uint32_t w = 0; w < pr.size; w += 4) c.values.push_back(static_cast<uint32_t>(r_.Next()));
      cmds.push_back(c);
    }
    // Sometimes a second, partial push of one range over the first.
    if (r_.Chance(30)) {
      const PushRange& pr = r_.Pick(layout.push);
      Cmd c;
      c.kind = CmdKind::kPushConstants;
      c.layout = layout_index;
      c.stages = pr.stages;
      const uint32_t words = pr.size / 4;
      const uint32_t first = r_.Below(words);
      c.first = pr.offset + 4 * first;
      for (uint32_t w = r_.Range(1, words - first); w > 0; --w) c.values.push_back(static_cast<uint32_t>(r_.Next()));
      cmds.push_back(c);
    }
    st.push_layout = layout_index;
  }

  uint32_t IndirectWords(const std::vector<uint32_t>& words) {
    const uint32_t at = static_cast<uint32_t>(p_.indirect.size());
    p_.indirect.insert(p_.indirect.end(), words.begin(), words.end());
    return at * 4;
  }

  Cmd MakeAction(const Pipeline& pl, uint32_t pipeline) {
    Cmd c;
    c.pipeline = pipeline;
    c.graphics = pl.graphics;
    if (!pl.graphics) {
      const uint32_t form = r_.Below(pl.dispatch_base ? 3 : 2);
      c.values = {r_.Range(1, 3), r_.Range(1, 2), r_.Range(1, 2)};
      if (form == 0) {
        c.kind = CmdKind::kDispatch;
      } else if (form == 1) {
        c.kind = CmdKind::kDispatchIndirect;
        c.first = IndirectWords(c.values);
      } else {
        c.kind = CmdKind::kDispatchBase;
        c.values.insert(c.values.begin(), {r_.Below(3), r_.Below(2), r_.Below(2)});
      }
      return c;
    }
    std::vector<CmdKind> forms = {CmdKind::kDraw, CmdKind::kDrawIndexed, CmdKind::kDrawIndirect,
                                  CmdKind::kDrawIndexedIndirect};
    if (f_.draw_indirect_count) {
      forms.push_back(CmdKind::kDrawIndirectCount);
      forms.push_back(CmdKind::kDrawIndexedIndirectCount);
    }
    if (f_.multi_draw) {
      forms.push_back(CmdKind::kDrawMulti);
      forms.push_back(CmdKind::kDrawMultiIndexed);
    }
    c.kind = r_.Pick(forms);
    const bool indexed = c.kind == CmdKind::kDrawIndexed || c.kind == CmdKind::kDrawIndexedIndirect ||
                         c.kind == CmdKind::kDrawIndexedIndirectCount || c.kind == CmdKind::kDrawMultiIndexed;
    // Indices (uint32) live in the indirect buffer; `src_offset` is where.
    if (indexed) {
      std::vector<uint32_t> idx(8);
      for (uint32_t& i : idx) i = r_.Below(64);
      c.src_offset = IndirectWords(idx);
    }
    auto one = [&]() -> std::vector<uint32_t> {
      // Draw: vertexCount, instanceCount, firstVertex, firstInstance;
      // indexed: indexCount, instanceCount, firstIndex, vertexOffset, firstInstance.
      if (indexed) return {r_.Range(1, 4), r_.Range(1, 2), r_.Below(4), r_.Below(8), r_.Below(2)};
      return {r_.Range(1, 8), r_.Range(1, 2), r_.Below(16), r_.Below(2)};
    };
    const uint32_t draws = r_.Range(1, 3);
    switch (c.kind) {
      case CmdKind::kDraw:
      case CmdKind::kDrawIndexed: c.values = one(); break;
      case CmdKind::kDrawIndirect:
      case CmdKind::kDrawIndexedIndirect:
      case CmdKind::kDrawIndirectCount:
      case CmdKind::kDrawIndexedIndirectCount: {
        std::vector<uint32_t> words;
        for (uint32_t i = 0; i < draws; ++i) {
          auto w = one();
          words.insert(words.end(), w.begin(), w.end());
        }
        c.first = IndirectWords(words);
        c.size = draws;  // drawCount (maxDrawCount for the count forms)
        c.values = {static_cast<uint32_t>(indexed ? 20 : 16)};  // stride
        if (c.kind == CmdKind::kDrawIndirectCount || c.kind == CmdKind::kDrawIndexedIndirectCount) {
          c.src = IndirectWords({r_.Range(0, draws)});  // the count, read by the device
        }
        break;
      }
      case CmdKind::kDrawMulti:
      case CmdKind::kDrawMultiIndexed: {
        c.size = draws;
        // firstVertex/vertexCount (or firstIndex/indexCount/vertexOffset) per draw, then instanceCount, firstInstance.
        for (uint32_t i = 0; i < draws; ++i) {
          if (indexed) c.values.insert(c.values.end(), {r_.Below(4), r_.Range(1, 4), r_.Below(8)});
          else c.values.insert(c.values.end(), {r_.Below(16), r_.Range(1, 8)});
        }
        c.values.insert(c.values.end(), {r_.Range(1, 2), r_.Below(2)});
        break;
      }
      default: break;
    }
    return c;
  }

  Cmd MakeTransfer() {
    Cmd c;
    const uint32_t kind = r_.Below(3);
    c.binding = r_.Below(static_cast<uint32_t>(p_.buffers.size()));
    const uint32_t size = p_.buffers[c.binding].size;
    if (kind == 0) {  // fill: offset and size multiples of 4 natively
      c.kind = CmdKind::kFill;
      c.first = 4 * r_.Below(size / 4);
      c.size = r_.Chance(20) ? 0 : 4 * r_.Range(1, (size - c.first) / 4);
      c.values = {static_cast<uint32_t>(r_.Next())};
    } else if (kind == 1) {  // update: the same
      c.kind = CmdKind::kUpdate;
      c.first = 4 * r_.Below(size / 4);
      const uint32_t words = r_.Range(1, std::min((size - c.first) / 4, 40u));
      for (uint32_t w = 0; w < words; ++w) c.values.push_back(static_cast<uint32_t>(r_.Next()));
    } else {  // copy: any byte offset and size, regions not overlapping
      c.kind = CmdKind::kCopy;
      c.src = r_.Below(static_cast<uint32_t>(p_.buffers.size()));
      const uint32_t src_size = p_.buffers[c.src].size;
      c.size = r_.Range(1, std::min(size, src_size) / 2);
      c.src_offset = r_.Below(src_size - c.size + 1);
      c.first = r_.Below(size - c.size + 1);
      if (c.src == c.binding && c.src_offset < c.first + c.size && c.first < c.src_offset + c.size) {
        c.src_offset = 0;
        c.first = size - c.size;
        if (c.size > size / 2) c.size = size / 2;
      }
    }
    return c;
  }

  enum class Added { kAction, kNoPipeline, kNoSets };

  // Where an action goes: a primary (anything), a secondary (dispatches and transfers: a
  // render pass cannot begin in a secondary) or a render-pass secondary (draws only).
  enum class Where { kPrimary, kSecondary, kRenderPassSecondary };

  // A transfer (sometimes, outside render passes) and an action with everything it needs bound.
  Added AddAction(std::vector<Cmd>& cmds, CmdState& st, Where where) {
    if (where != Where::kRenderPassSecondary) MaybeImageTransfer(cmds);
    if (where != Where::kRenderPassSecondary && r_.Chance(35)) cmds.push_back(MakeTransfer());
    std::vector<uint32_t> runnable;
    for (uint32_t i = 0; i < p_.pipelines.size(); ++i) {
      const bool graphics = p_.pipelines[i].graphics;
      const bool fits = where == Where::kPrimary || graphics == (where == Where::kRenderPassSecondary);
      if (HasSetsFor(i) && fits) runnable.push_back(i);
    }
    if (runnable.empty()) return Added::kNoPipeline;
    const uint32_t pipeline = r_.Pick(runnable);
    const Pipeline& pl = p_.pipelines[pipeline];
    BindPoint& bp = st.bp[pl.graphics ? 1 : 0];
    // Binding order varies: pipeline first or sets first.
    const bool pipeline_first = r_.Chance(50);
    if (pipeline_first && bp.pipeline != pipeline) {
      cmds.push_back(Cmd{CmdKind::kBindPipeline, pl.graphics, pipeline});
      bp.pipeline = pipeline;
    }
    if (!PrepareSets(cmds, st, pipeline)) return Added::kNoSets;
    PreparePush(cmds, st, pl.layout);
    if (bp.pipeline != pipeline) {
      cmds.push_back(Cmd{CmdKind::kBindPipeline, pl.graphics, pipeline});
      bp.pipeline = pipeline;
    }
    cmds.push_back(MakeAction(pl, pipeline));
    if (!pl.graphics) ForgetGraphicsSetsAfterDispatch(st);
    return Added::kAction;
  }

  // On lavapipe a compute push reaching a graphics stage lands on graphics sets (see
  // PrepareSets). A layer may push a compute set again for any later dispatch (Bindery makes
  // a pushed set again for a pipeline running natively, or its native part for a converted
  // one): that push, valid by the spec, lands there too, after the graphics binds that
  // covered the application's own. So after a dispatch with such a set pushed, every
  // graphics set counts as gone.
  void ForgetGraphicsSetsAfterDispatch(CmdState& st) {
    if (!f_.compute_push_reaches_graphics_sets) return;
    const std::vector<BoundSet>& compute = st.bp[0].sets;
    bool reaches = false;
    for (uint32_t n = 0; n < compute.size() && !reaches; ++n) {
      if (compute[n].slot != kPushed) continue;
      const PipelineLayout& via = p_.pipeline_layouts[compute[n].layout];
      reaches = n < via.sets.size() && (SetLayoutStages(p_.set_layouts[via.sets[n]]) & (kVertex | kFragment)) != 0;
    }
    if (!reaches) return;
    for (BoundSet& g : st.bp[1].sets) g.slot = kNoSlot;
  }

  std::vector<Cmd> MakeCommands() {
    std::vector<Cmd> cmds;
    CmdState st;
    const uint32_t actions = r_.Range(1, 6);
    for (uint32_t a = 0; a < actions; ++a) {
      if (AddAction(cmds, st, Where::kPrimary) == Added::kNoPipeline) break;
    }
    if (r_.Chance(30)) cmds.push_back(MakeTransfer());
    WithExtra([&]() { AddSecondary(cmds, st); });
    if (f_.pipeline_statistics) AddQuery(cmds);
    return cmds;
  }

  // Pipeline-statistics queries (their own stream, s_, consulted only where the device has
  // pipelineStatisticsQuery: elsewhere a seed's program is the one it was before): the
  // statistics a query or a secondary counts, COMPUTE_SHADER_INVOCATIONS mostly (what a
  // transfer kernel of the layer would change), graphics statistics beside it or alone.
  uint32_t Statistics() {
    constexpr uint32_t kGraphics[] = {0x1, 0x2, 0x4, 0x20, 0x40, 0x80};  // IA vertices, primitives, VS, clipping x2, FS
    constexpr uint32_t kComputeInvocations = 0x400;
    uint32_t bits = s_.Chance(80) ? kComputeInvocations : 0;
    for (uint32_t g : kGraphics) bits |= s_.Chance(25) ? g : 0;
    return bits != 0 ? bits : kComputeInvocations;
  }

  // A query begun before one command of the primary and ended before a later one (or at its
  // end), around its transfers, dispatches and draws (each draw has its own render pass
  // instance inside the query). The secondary at the end may declare inherited statistics,
  // query or not; a query spans it only where inheritedQueries exists, and then it inherits
  // the query's statistics (VUID-vkCmdExecuteCommands-commandBuffer-00104).
  void AddQuery(std::vector<Cmd>& cmds) {
    // Positions count only the commands the image-transfer stream did not add, so that the
    // query lands around the same commands with --image-transfers as without (a seed's
    // program only gains lines: apifuzz.image_transfers.only_added).
    std::vector<size_t> at;  // at[k]: where the k-th such command is; at[n]: the end
    for (size_t i = 0; i < cmds.size(); ++i) {
      if (!IsImageTransfer(cmds[i].kind)) at.push_back(i);
    }
    const uint32_t n = static_cast<uint32_t>(at.size());
    at.push_back(cmds.size());
    size_t sb = n, se = n;  // the secondary's kBeginSecondary and kEndSecondary (in at[])
    for (size_t k = 0; k < n; ++k) {
      if (cmds[at[k]].kind == CmdKind::kBeginSecondary) sb = k;
      if (cmds[at[k]].kind == CmdKind::kEndSecondary) se = k;
    }
    if (sb < n && s_.Chance(30)) cmds[at[sb]].stages = Statistics();
    if (n == 0 || !s_.Chance(40)) return;
    size_t begin = s_.Below(n), end = s_.Range(static_cast<uint32_t>(begin) + 1, n);  // before cmds[end], or last
    if (f_.query_begins_first) begin = 0;  // lavapipe: see Features::query_begins_first
    if (sb < n) {
      if (begin > sb && begin <= se) begin = sb;  // not inside the secondary
      if (end > sb && end <= se) end = se + 1;
      if (begin <= sb && end > se && !f_.inherited_queries) end = sb;  // ends before it
    }
    if (end <= begin) return;
    Cmd q;
    q.kind = CmdKind::kBeginQuery;
    q.first = queries_++;
    q.stages = Statistics();
    // Exactly the query's statistics: the spec wants at least them, and the validation layer
    // of Debian 12 (1.3.239) checks the reverse inclusion (VUID-...-00104 reported for a
    // secondary inheriting more).
    if (sb < n && begin <= sb && end > se) cmds[at[sb]].stages = q.stages;
    Cmd e = q;
    e.kind = CmdKind::kEndQuery;
    cmds.insert(cmds.begin() + static_cast<std::ptrdiff_t>(at[end]), e);
    cmds.insert(cmds.begin() + static_cast<std::ptrdiff_t>(at[begin]), q);
  }

  // A secondary command buffer at the end of a primary (extra stream): it starts with nothing
  // bound and leaves the primary with nothing bound; a render-pass secondary holds one draw
  // (two draws' storage writes in one render pass instance would race), another secondary
  // dispatches and transfers. Sometimes an action after it binds everything again.
  void AddSecondary(std::vector<Cmd>& cmds, CmdState& st) {
    if (!r_.Chance(20)) return;
    Cmd begin;
    begin.kind = CmdKind::kBeginSecondary;
    begin.graphics = r_.Chance(50);
    cmds.push_back(begin);
    CmdState inside;
    for (uint32_t a = begin.graphics ? 1 : r_.Range(1, 3); a > 0; --a) {
      const Where where = begin.graphics ? Where::kRenderPassSecondary : Where::kSecondary;
      if (AddAction(cmds, inside, where) == Added::kNoPipeline) break;
    }
    Cmd end;
    end.kind = CmdKind::kEndSecondary;
    cmds.push_back(end);
    st = CmdState{};
    if (r_.Chance(50)) AddAction(cmds, st, Where::kPrimary);
  }

  // A copy step of a random run of elements from binding `sb` of set `src` (which has
  // some) into binding `b` of set `dst` (`dst_count` elements); what it writes is noted.
  void CopyElements(uint32_t dst, const Binding& b, uint32_t dst_count, uint32_t src, const Binding& sb) {
    Step s;
    s.kind = StepKind::kCopySet;
    s.slot = dst;
    s.binding = b.binding;
    s.src_slot = src;
    s.src_binding = sb.binding;
    s.count = r_.Range(1, std::min(dst_count, SlotCount(src, sb)));
    s.element = r_.Below(dst_count - s.count + 1);
    s.src_element = r_.Below(SlotCount(src, sb) - s.count + 1);
    for (uint32_t e = 0; e < s.count; ++e) {
      slots_[dst].written[{b.binding, s.element + e}] = slots_[src].written.at({sb.binding, s.src_element + e});
    }
    p_.steps.push_back(s);
  }

  // Update-after-bind: writes and copies into update-after-bind bindings of sets the
  // submission just recorded binds, made after its recording and before it is submitted (it
  // reads the new descriptors). Not into a set an earlier submission of the batch binds: that
  // one may be pending, and an update-after-bind binding may not change under pending work.
  void LateUpdates(const std::vector<uint32_t>& bound, const std::set<uint32_t>& used_in_batch) {
    if (!r_.Chance(60)) return;
    for (uint32_t k = r_.Range(1, 2); k > 0; --k) {
      std::vector<std::pair<uint32_t, Binding>> targets;
      for (uint32_t slot : bound) {
        if (slot >= slots_.size() || !slots_[slot].allocated || used_in_batch.count(slot)) continue;
        for (const Binding& b : SlotLayout(slot).bindings) {
          if ((b.flags & kUpdateAfterBind) && SlotCount(slot, b) > 0) targets.push_back({slot, b});
        }
      }
      if (targets.empty()) return;
      const auto [dst, b] = r_.Pick(targets);
      const uint32_t dst_count = SlotCount(dst, b);
      const size_t before = p_.steps.size();
      if (r_.Chance(70)) {
        const uint32_t first = r_.Below(dst_count);
        WriteBinding(dst, b, first, r_.Range(1, dst_count - first));
      } else {
        for (uint32_t src = 0; src < slots_.size(); ++src) {
          if (!slots_[src].allocated || src == dst || !FullyWritten(src) || !CopyAllowed(src, dst)) continue;
          const Binding* sb = nullptr;
          for (const Binding& c : SlotLayout(src).bindings) {
            if (c.type == b.type && c.role == b.role && (!c.nullable || b.nullable) && SlotCount(src, c) > 0) sb = &c;
          }
          if (sb == nullptr) continue;
          CopyElements(dst, b, dst_count, src, *sb);
          break;
        }
      }
      for (size_t i = before; i < p_.steps.size(); ++i) p_.steps[i].late = true;
    }
  }

  // Timeline semaphore of queue q's submissions: the device chain (0) for queue 0, then
  // one after the batches' gates (1..3) for each other queue.
  static uint32_t QueueSemaphore(uint32_t q) { return q == 0 ? 0 : kMaxBatches + q; }

  // Several queues (q_ stream): the batch's submissions go to random queues and run in one
  // order, chained by timeline semaphores so that every pair of them is ordered (they share
  // every buffer). Each queue signals its own semaphore with rising values (a queue runs its
  // submissions in order, so each semaphore rises in the order its signals run). The order
  // keeps each queue's submissions in submission order and otherwise interleaves the queues
  // at random: a submission may run before one submitted earlier on another queue, which then
  // waits for a value that a later submission signals (wait-before-signal across queues).
  // On queues sharing one driver queue the order is the submission order.
  void SpreadOverQueues(const std::vector<size_t>& submit_steps) {
    p_.semaphores = std::max(p_.semaphores, QueueSemaphore(p_.queues - 1) + 1);
    std::vector<std::vector<size_t>> per_queue(p_.queues);
    for (size_t i : submit_steps) {
      Step& s = p_.steps[i];
      s.queue = q_.Below(p_.queues);
      per_queue[s.queue].push_back(i);
      // The first stream's device-chain waits and signals assumed one queue: replaced below
      // (the host gate's waits stay).
      auto chain = [](const Wait& w) { return w.semaphore == 0; };
      s.waits.erase(std::remove_if(s.waits.begin(), s.waits.end(), chain), s.waits.end());
      s.signals.erase(std::remove_if(s.signals.begin(), s.signals.end(), chain), s.signals.end());
      s.signals.push_back({QueueSemaphore(s.queue), ++queue_value_[s.queue]});
    }
    std::vector<size_t> order;
    std::vector<size_t> next(p_.queues, 0);
    while (order.size() < submit_steps.size()) {
      if (f_.shared_queues) {
        order.push_back(submit_steps[order.size()]);
        continue;
      }
      std::vector<uint32_t> ready;
      for (uint32_t q = 0; q < p_.queues; ++q) {
        if (next[q] < per_queue[q].size()) ready.push_back(q);
      }
      const uint32_t q = q_.Pick(ready);
      order.push_back(per_queue[q][next[q]++]);
    }
    for (size_t j = 1; j < order.size(); ++j) {
      Step& s = p_.steps[order[j]];
      const Step& before = p_.steps[order[j - 1]];
      if (before.queue != s.queue) s.waits.push_back(before.signals.back());
      // Now and then also a wait for an earlier one of the order (already implied), or for
      // a value of an earlier batch (already reached).
      if (q_.Chance(25) && j >= 2) s.waits.push_back(p_.steps[order[q_.Below(static_cast<uint32_t>(j - 1))]].signals.back());
      const uint32_t q = q_.Below(p_.queues);
      if (q_.Chance(20) && done_value_[q] > kChainBase)
        s.waits.push_back({QueueSemaphore(q), kChainBase + 1 + q_.Below(static_cast<uint32_t>(done_value_[q] - kChainBase))});
    }
    for (uint32_t q = 0; q < p_.queues; ++q) done_value_[q] = queue_value_[q];
  }

  void MakeBatch() {
    HostDescriptorWork();
    const uint32_t submits = r_.Range(1, 3);
    uint64_t gate_wanted = 0;
    // A fresh gate per batch, host-signaled once: the validation layer of this era keeps a
    // host signal pending forever and then refuses a second, higher one.
    const uint32_t gate = ++batch_;
    std::set<uint32_t> used_in_batch;  // sets an earlier submission of this batch binds (maybe pending)
    std::vector<size_t> submit_steps;
    for (uint32_t i = 0; i < submits; ++i) {
      Step s;
      s.kind = StepKind::kSubmit;
      s.cmds = MakeCommands();
      if (submits > 1 || r_.Chance(30)) {
        // Semaphore 0: the device chain; 1 + b: batch b's gate (wait-before-signal).
        p_.semaphores = std::max(p_.semaphores, gate + 1);
        if (r_.Chance(40)) {
          s.waits.push_back({gate, 1 + r_.Below(2)});
          gate_wanted = std::max(gate_wanted, s.waits.back().value);
        }
        if (chain_ > kChainBase && r_.Chance(50))
          s.waits.push_back({0, kChainBase + 1 + r_.Below(static_cast<uint32_t>(chain_ - kChainBase))});
        if (r_.Chance(70)) s.signals.push_back({0, ++chain_});
      }
      std::vector<uint32_t> bound;
      for (const Cmd& c : s.cmds) {
        if (c.kind == CmdKind::kBindSets) bound.insert(bound.end(), c.sets.begin(), c.sets.end());
      }
      submit_steps.push_back(p_.steps.size());
      p_.steps.push_back(s);
      if (Indexing()) WithIndexing([&]() { LateUpdates(bound, used_in_batch); });
      used_in_batch.insert(bound.begin(), bound.end());
    }
    if (p_.queues > 1) SpreadOverQueues(submit_steps);
    if (gate_wanted > 0) {  // the signal comes after the waits were submitted
      Step s;
      s.kind = StepKind::kHostSignal;
      s.signals.push_back({gate, gate_wanted + r_.Below(2)});
      p_.steps.push_back(s);
    }
    Step idle;
    idle.kind = StepKind::kWaitIdle;
    p_.steps.push_back(idle);
  }

  Rng r_;
  Rng x_;  // features added later (images, null descriptors, secondaries): see WithExtra
  Rng n_;  // which descriptors of nullable bindings are null
  Rng d_;  // descriptor indexing: see WithIndexing
  Rng q_;  // several queues: see SpreadOverQueues
  Rng e_;  // buffers on external memory: see MakeExternalBuffers
  Rng s_;  // pipeline-statistics queries: see AddQuery
  Rng m_;  // modules of several entry points: see ShareModules
  Rng l_;  // graphics pipeline libraries: see ChooseLibraryModes
  Rng g_;  // images in push-descriptor sets read in pre-rasterisation stages (Features::push_images)
  Rng k_;  // packed 16/8-bit copies (Features::packed_copies)
  Rng i_;  // image transfers: see WithImageTransfers
  Rng w_;  // a layout of as many sets as the device binds: see AddManySetLayout (Features::many_sets)
  uint32_t queries_ = 0;  // queries named so far (each kBeginQuery its own)
  Features f_;
  Program p_;
  std::vector<SlotState> slots_;
  // The device chain counts from far above the host gate: the validation layer of this era
  // compares a host signal with the pending signals of every semaphore, not only its own.
  static constexpr uint64_t kChainBase = 1000;
  uint64_t chain_ = kChainBase;
  uint32_t batch_ = 0;
  static constexpr uint32_t kMaxBatches = 3;  // batches of a program (gates 1..3)
  // Several queues: the last value each queue's semaphore was given, and the values every
  // queue had reached when the last batch ended (its wait for idle).
  uint64_t queue_value_[3] = {kChainBase, kChainBase, kChainBase};
  uint64_t done_value_[3] = {kChainBase, kChainBase, kChainBase};
};

}  // namespace

bool SamePush(const PipelineLayout& a, const PipelineLayout& b) {
  if (a.push.size() != b.push.size()) return false;
  for (size_t i = 0; i < a.push.size(); ++i) {
    if (a.push[i].stages != b.push[i].stages || a.push[i].offset != b.push[i].offset ||
        a.push[i].size != b.push[i].size)
      return false;
  }
  return true;
}

bool Compatible(const Program& p, uint32_t a, uint32_t b, uint32_t set) {
  if (a >= p.pipeline_layouts.size() || b >= p.pipeline_layouts.size()) return false;
  const PipelineLayout& la = p.pipeline_layouts[a];
  const PipelineLayout& lb = p.pipeline_layouts[b];
  if (set >= la.sets.size() || set >= lb.sets.size() || !SamePush(la, lb)) return false;
  for (uint32_t i = 0; i <= set; ++i) {
    if (!SameSetLayout(p.set_layouts[la.sets[i]], p.set_layouts[lb.sets[i]])) return false;
  }
  return true;
}

Program Generate(uint64_t seed, const Features& features) { return Generator(seed, features).Run(); }

}  // namespace bindery::apifuzz
