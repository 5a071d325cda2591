// nndna's model API: what a model spec includes.
//
// A spec builds a Module (named parameters and child modules), writes forward functions as free
// functions over `Tensor`s, and marks itself with NNDNA_SPEC. Tracing runs those functions on
// symbolic tensors: a Tensor carries a shape and a dtype only, nothing is ever computed.
//
// This header is deliberately light (no JSON, fmt, Boost or heavy templates, not even <string>):
// every spec compile pays for what it includes. Bodies live in libnndna.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <limits>
#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "nndna/export.hpp"

NNDNA_API_BEGIN  // the whole header is libnndna's interface (export.hpp)

namespace nndna {

// ===== Shapes and dtypes ========================================================================

enum class DType : std::uint8_t { f32, i32, boolean };
inline constexpr DType f32 = DType::f32;
inline constexpr DType i32 = DType::i32;

using Shape = std::vector<std::int64_t>;

// ===== Text =====================================================================================
// The strings this header's types own (a spec's label, a module's path, an input's name): a
// value type like std::string, with its members in libnndna. Why not std::string: in C++20 mode
// <string> makes every file that includes it instantiate libstdc++'s string templates at the end
// of its compile (the library's inline functions use them and no precompiled header keeps that
// work), about a third of a spec's compile (docs/specrun.md, "Why the spec header is shaped this
// way"). A spec that uses std::string or std::to_string includes <string> itself.
class Text {
 public:
  Text() noexcept = default;
  Text(const char* text);       // NOLINT: implicit (`.label = "MLP"`)
  Text(std::string_view text);  // NOLINT: implicit
  // From anything that reads as a string_view (std::string), as std::string_view would.
  template <class S>
    requires(std::is_convertible_v<const S&, std::string_view> &&
             !std::is_convertible_v<const S&, const char*> && !std::is_same_v<S, Text>)
  Text(const S& text) : Text(std::string_view(text)) {}  // NOLINT: implicit
  Text(const Text& other);
  Text(Text&& other) noexcept;
  Text& operator=(const Text& other);
  Text& operator=(Text&& other) noexcept;
  ~Text();

  std::string_view view() const noexcept { return {c_str(), size_}; }
  operator std::string_view() const noexcept { return view(); }  // NOLINT: implicit, reads as text
  const char* c_str() const noexcept { return data_ != nullptr ? data_ : ""; }  // NUL-terminated
  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }

  // Two overloads, not one taking a string_view: with one, `a == b` of two Texts is ambiguous in
  // C++20 (the call and its reversed form match equally; clang rejects it).
  friend bool operator==(const Text& a, const Text& b) noexcept { return a.view() == b.view(); }
  template <class S>
    requires(std::is_convertible_v<const S&, std::string_view> && !std::is_same_v<S, Text>)
  friend bool operator==(const Text& a, const S& b) noexcept {
    return a.view() == std::string_view(b);
  }

 private:
  // A NUL-terminated copy of `text` for data_ (null when empty). data_ is a plain owning pointer
  // rather than a unique_ptr: this header does not include <memory>.
  static char* copyOf(std::string_view text);

  char* data_ = nullptr;  // owned, size_ + 1 bytes; null when empty
  std::size_t size_ = 0;
};
// `module.path() + ".residual"`
Text operator+(const Text& a, std::string_view b);
std::ostream& operator<<(std::ostream& out, const Text& text);

// ===== Named dims ===============================================================================
// `constexpr Dim T{"T", 1024, "context"};` names a size. A Dim is an integer wherever one is
// expected (`T - 1`, `Shape{B, T}`, `i < T`, an array bound), and wherever the model API takes a
// size or a shape (layer sizes, `reshape`, `splitHeads`, inputs, parameters) it also takes the
// name: the tensor's axes then know they are T, and its boxes read [B, T, D] even where sizes
// collide (T = D = 1024). `*` and `/` of dims and whole numbers keep the names (`H * Dh`,
// `D / H`, `4 * D`); a Dim may be defined by such a product (`constexpr Dim Dh{"Dh", D / H};`),
// which lets the diagram read an axis computed as D/H as Dh. Other arithmetic (`T + 1`, `T % 2`)
// gives a plain integer. A function overloaded on several number types needs a cast:
// `std::sqrt(double(Dh))`. Names are identifiers (`Dh`, `n_embd`); every dim the model API meets
// is listed in the diagram's legend, with its description and colour (`#rrggbb`).

// One named dim of a product, raised to `power`.
struct DimFactor {
  std::string_view name;
  std::string_view desc;
  std::string_view color;
  std::int64_t size = 0;
  int power = 0;
};

// An integer that remembers which dims it is the product of: what `*` and `/` of dims give.
class DimExpr {
 public:
  static constexpr int kMaxFactors = 4;

  constexpr DimExpr() = default;
  constexpr std::int64_t value() const { return value_; }
  constexpr operator std::int64_t() const { return value_; }  // NOLINT: an integer everywhere
  // False once the name is lost: a quotient that is not exact, more than kMaxFactors dims.
  constexpr bool named() const { return named_ && count_ > 0; }
  // value = numerator / denominator · Π factor.size^power
  constexpr std::int64_t numerator() const { return num_; }
  constexpr std::int64_t denominator() const { return den_; }
  constexpr int factorCount() const { return count_; }
  constexpr const DimFactor& factor(int i) const { return factors_[i]; }

  friend constexpr DimExpr operator*(const DimExpr& a, const DimExpr& b) { return combine(a, b, 1); }
  friend constexpr DimExpr operator/(const DimExpr& a, const DimExpr& b) { return combine(a, b, -1); }
  template <class I>
    requires std::is_integral_v<I>
  friend constexpr DimExpr operator*(const DimExpr& a, I b) { return a.scaled(static_cast<std::int64_t>(b), 1); }
  template <class I>
    requires std::is_integral_v<I>
  friend constexpr DimExpr operator*(I a, const DimExpr& b) { return b.scaled(static_cast<std::int64_t>(a), 1); }
  template <class I>
    requires std::is_integral_v<I>
  friend constexpr DimExpr operator/(const DimExpr& a, I b) { return a.scaled(1, static_cast<std::int64_t>(b)); }
  template <class I>
    requires std::is_integral_v<I>
  friend constexpr DimExpr operator/(I a, const DimExpr& b) {
    DimExpr whole;
    whole.value_ = static_cast<std::int64_t>(a);
    whole.num_ = whole.value_;
    return combine(whole, b, -1);
  }

 protected:
  constexpr explicit DimExpr(const DimFactor& single) : value_(single.size), count_(1) {
    factors_[0] = single;
  }

 private:
  static constexpr std::int64_t gcd(std::int64_t a, std::int64_t b) {
    if (a < 0) a = -a;
    if (b < 0) b = -b;
    while (b != 0) {
      const std::int64_t r = a % b;
      a = b;
      b = r;
    }
    return a;
  }
  // value · num / den; a division that is not exact (or by 0) loses the name.
  constexpr DimExpr scaled(std::int64_t num, std::int64_t den) const {
    DimExpr out = *this;
    if (den == 0 || __builtin_mul_overflow(value_, num, &out.value_) || out.value_ % den != 0 ||
        __builtin_mul_overflow(num_, num, &out.num_) || __builtin_mul_overflow(den_, den, &out.den_)) {
      out.value_ = den == 0 ? 0 : out.value_ / den;
      out.named_ = false;
      return out;
    }
    out.value_ /= den;
    out.reduce();
    return out;
  }
  constexpr void reduce() {
    if (den_ < 0) {
      den_ = -den_;
      num_ = -num_;
    }
    const std::int64_t g = gcd(num_, den_);
    if (g > 1) {
      num_ /= g;
      den_ /= g;
    }
  }
  // a · b (sign 1) or a / b (sign -1), with the integer semantics of the values.
  static constexpr DimExpr combine(const DimExpr& a, const DimExpr& b, int sign) {
    DimExpr out = a;
    bool exact = a.named_ && b.named_;
    if (sign > 0) {
      exact = !__builtin_mul_overflow(a.value_, b.value_, &out.value_) &&
              !__builtin_mul_overflow(a.num_, b.num_, &out.num_) &&
              !__builtin_mul_overflow(a.den_, b.den_, &out.den_) && exact;
    } else if (b.value_ == 0) {
      out.value_ = 0;
      exact = false;
    } else {
      out.value_ = a.value_ / b.value_;
      exact = a.value_ % b.value_ == 0 && !__builtin_mul_overflow(a.num_, b.den_, &out.num_) &&
              !__builtin_mul_overflow(a.den_, b.num_, &out.den_) && exact;
    }
    out.named_ = exact;
    if (!exact) return out;
    out.reduce();
    for (int i = 0; i < b.count_; ++i) out.addFactor(b.factors_[i], sign * b.factors_[i].power);
    return out;
  }
  constexpr void addFactor(const DimFactor& f, int power) {
    for (int i = 0; i < count_; ++i) {
      if (factors_[i].name == f.name) {
        factors_[i].power += power;
        if (factors_[i].power == 0) {
          for (int j = i + 1; j < count_; ++j) factors_[j - 1] = factors_[j];
          --count_;
        }
        return;
      }
    }
    if (count_ == kMaxFactors) {
      named_ = false;
      return;
    }
    factors_[count_] = f;
    factors_[count_].power = power;
    ++count_;
  }

  std::int64_t value_ = 0;
  std::int64_t num_ = 1;
  std::int64_t den_ = 1;
  DimFactor factors_[kMaxFactors]{};
  int count_ = 0;
  bool named_ = true;
};

// A named size: `constexpr Dim T{"T", 1024, "context"};`, `constexpr Dim Dh{"Dh", D / H};`.
class Dim : public DimExpr {
 public:
  constexpr Dim(std::string_view name, std::int64_t size, std::string_view desc = {},
                std::string_view color = {})
      : DimExpr(DimFactor{name, desc, color, size, 1}) {}
  constexpr Dim(std::string_view name, const DimExpr& definition, std::string_view desc = {},
                std::string_view color = {})
      : DimExpr(DimFactor{name, desc, color, definition.value(), 1}), definition_(definition) {}

  constexpr std::string_view name() const { return factor(0).name; }
  constexpr std::string_view desc() const { return factor(0).desc; }
  constexpr std::string_view color() const { return factor(0).color; }
  // The product this dim was defined as (no factors when it was given a number).
  constexpr const DimExpr& definition() const { return definition_; }

 private:
  DimExpr definition_;
};

// A size as the model API takes it: a whole number, a Dim, or a product of dims (`H * Dh`).
class Size {
 public:
  constexpr Size() = default;
  constexpr Size(std::int64_t value) : value_(value) {}  // NOLINT: implicit (`Linear("fc", 8, 16)`)
  constexpr Size(const DimExpr& expr) : value_(expr.value()), expr_(expr) {}  // NOLINT: implicit
  constexpr Size(const Dim& dim)  // NOLINT: implicit
      : value_(dim.value()), expr_(dim), definition_(dim.definition()) {}
  constexpr operator std::int64_t() const { return value_; }  // NOLINT: an integer everywhere

  constexpr std::int64_t value() const { return value_; }
  // The product that names it (no factors for a plain number).
  constexpr const DimExpr& expr() const { return expr_; }
  // For a whole Dim: its definition (no factors when it was given a number).
  constexpr const DimExpr& definition() const { return definition_; }

 private:
  std::int64_t value_ = 0;
  DimExpr expr_;
  DimExpr definition_;
};

// A shape as the model API takes it: `{B, T, -1}`, `{V, D}`, or a Shape.
class Sizes {
 public:
  Sizes(std::initializer_list<Size> sizes);  // NOLINT: implicit (`reshape(x, {B, T, D})`)
  Sizes(const Shape& shape);                 // NOLINT: implicit (`reshape(x, y.shape())`)
  explicit Sizes(std::vector<Size> sizes);
  Sizes(const Sizes& other);
  Sizes(Sizes&& other) noexcept;
  Sizes& operator=(const Sizes& other);
  Sizes& operator=(Sizes&& other) noexcept;
  ~Sizes();

  const std::vector<Size>& all() const { return sizes_; }
  Shape values() const;

 private:
  std::vector<Size> sizes_;
};

namespace detail {
struct TensorAccess;  // the library's access to a Tensor's handle (not part of the API)
}  // namespace detail

// A symbolic tensor: a handle into the graph being traced (or to a model parameter). Copying is
// free. The accessors read the shape the tracer inferred; they work inside forward functions
// (and, for parameters, while the model is built). A tensor belongs to the trace that made it:
// using it in another trace (say, kept in a module member from the training trace and read in
// the inference trace) is a TraceError.
class Tensor {
 public:
  Tensor() = default;

  bool defined() const { return id_ != kUndefined; }
  // A copy, so it stays valid however many ops the trace adds afterwards.
  Shape shape() const;
  DType dtype() const;
  std::int64_t rank() const;
  // Size of one axis; negative axes count from the end.
  std::int64_t dim(std::int64_t axis) const;
  std::int64_t numel() const;

 private:
  friend struct detail::TensorAccess;
  static constexpr std::uint32_t kUndefined = 0xffffffffu;
  std::uint32_t id_ = kUndefined;  // a tensor id of its trace, or a parameter slot (tagged)
  std::uint32_t owner_ = 0;        // the serial of the trace or built model the id belongs to
};

// A pair of integers given as one int (`3`) or two (`{3, 5}`): kernel sizes, strides, padding.
struct Hw {
  std::int64_t h = 0;
  std::int64_t w = 0;
  Hw() = default;
  Hw(std::int64_t both) : h(both), w(both) {}  // NOLINT: implicit on purpose (`k = 3`)
  // A Dim or a product of dims (`maxPool2d(x, P)`): C++ applies one implicit conversion, not two.
  Hw(const DimExpr& both) : Hw(both.value()) {}  // NOLINT: implicit, as above
  Hw(std::int64_t h_, std::int64_t w_) : h(h_), w(w_) {}
};

// ===== Ops ======================================================================================
// Free functions, as in tensorgrad. NumPy broadcasting (trailing alignment) for elementwise ops;
// negative axes count from the end.

// Arithmetic and comparison: tensor ⊕ tensor, tensor ⊕ number, number ⊕ tensor.
Tensor add(Tensor a, Tensor b);
Tensor add(Tensor a, double b);
Tensor add(double a, Tensor b);
Tensor sub(Tensor a, Tensor b);
Tensor sub(Tensor a, double b);
Tensor sub(double a, Tensor b);
Tensor mul(Tensor a, Tensor b);
Tensor mul(Tensor a, double b);
Tensor mul(double a, Tensor b);
Tensor div(Tensor a, Tensor b);
Tensor div(Tensor a, double b);
Tensor div(double a, Tensor b);
// Elementwise (PyTorch's torch.minimum / torch.maximum, or clamp with a number).
Tensor min(Tensor a, Tensor b);
Tensor min(Tensor a, double b);
Tensor max(Tensor a, Tensor b);
Tensor max(Tensor a, double b);
// `max(x, -1)` reads as PyTorch's torch.max(x, dim), a reduction over an axis, but would be the
// elementwise max with -1: an integer there does not compile (this deleted overload is the
// compiler's "use of deleted function"). Write `amax(x, -1)` for the largest value along an axis
// (`amin`, `argmax` for its index), or `max(x, -1.0)` for the elementwise max with a number.
template <class Integer>
  requires std::is_integral_v<Integer>
Tensor max(Tensor a, Integer axisOrNumber) = delete;
template <class Integer>
  requires std::is_integral_v<Integer>
Tensor min(Tensor a, Integer axisOrNumber) = delete;
// Comparisons give boolean tensors (usable by `where`, and as 0/1 in arithmetic).
Tensor less(Tensor a, Tensor b);
Tensor less(Tensor a, double b);
Tensor greater(Tensor a, Tensor b);
Tensor greater(Tensor a, double b);
Tensor where(Tensor cond, Tensor ifTrue, Tensor ifFalse);

// Unary math.
Tensor sqrt(Tensor x);
Tensor rsqrt(Tensor x);
Tensor log(Tensor x);
Tensor exp(Tensor x);
Tensor neg(Tensor x);
Tensor abs(Tensor x);
Tensor square(Tensor x);
Tensor sin(Tensor x);
Tensor cos(Tensor x);
Tensor erf(Tensor x);
// x^exponent, elementwise (torch.pow with a number for the exponent). f32; a negative x with
// an exponent that is not a whole number gives NaN, as in PyTorch.
Tensor pow(Tensor x, double exponent);

// Activations.
enum class GeluApproximate : std::uint8_t { none, tanh };
struct GeluOptions {
  GeluApproximate approximate = GeluApproximate::none;  // none = exact erf form (nn.GELU())
};
Tensor relu(Tensor x);
Tensor tanh(Tensor x);
Tensor sigmoid(Tensor x);
Tensor gelu(Tensor x, GeluOptions options = {});
Tensor silu(Tensor x);
Tensor leakyRelu(Tensor x, double alpha = 0.01);
Tensor softplus(Tensor x);
Tensor clamp(Tensor x, double lo, double hi);
// MobileNet's hard activations, as PyTorch's: relu6 = clamp(x, 0, 6) (nn.ReLU6),
// hardsigmoid = relu6(x + 3) / 6, hardswish = x · hardsigmoid(x) (MobileNetV3).
Tensor relu6(Tensor x);
Tensor hardsigmoid(Tensor x);
Tensor hardswish(Tensor x);
// nn.ELU: x where x > 0, alpha·(e^x − 1) elsewhere; nn.Mish (YOLOv4): x · tanh(softplus(x)).
Tensor elu(Tensor x, double alpha = 1.0);
Tensor mish(Tensor x);
// F.normalize: x divided by its p-norm along `dim`, the norm at least eps (a zero vector stays
// zero). PyTorch's defaults: p = 2 over dim 1.
struct NormalizeOptions {
  double p = 2.0;
  std::int64_t dim = 1;
  double eps = 1e-12;
};
Tensor normalize(Tensor x, NormalizeOptions options = {});

// Reductions. Without an axis: over every element (rank-0 result).
struct ReduceOptions {
  bool keepDims = false;
};
Tensor mean(Tensor x);
Tensor mean(Tensor x, std::int64_t axis, ReduceOptions options = {});
Tensor sum(Tensor x);
Tensor sum(Tensor x, std::int64_t axis, ReduceOptions options = {});
// Over several axes: `mean(x, {-2, -1})` (the spatial mean of NCHW).
Tensor mean(Tensor x, std::vector<std::int64_t> axes, ReduceOptions options = {});
Tensor sum(Tensor x, std::vector<std::int64_t> axes, ReduceOptions options = {});
Tensor argmax(Tensor x, std::int64_t axis = -1);
Tensor argmin(Tensor x, std::int64_t axis = -1);
// The largest (smallest) value along `axis`: PyTorch's amax / amin over one axis, and
// torch.max(x, dim).values. The gradient goes to the position argmax (argmin) picks, the lower
// index among ties.
Tensor amax(Tensor x, std::int64_t axis, ReduceOptions options = {});
Tensor amin(Tensor x, std::int64_t axis, ReduceOptions options = {});
// torch.logsumexp over one axis: log Σ exp(x), shifted by the maximum so that it never overflows
// (a composite: the maximum, kept finite, exp, sum, log), -inf for a row of -inf (one fully
// masked) and +inf for a row holding +inf. Its gradient is softmax(x).
Tensor logsumexp(Tensor x, std::int64_t axis, ReduceOptions options = {});
// The running sum along `axis` (PyTorch's cumsum): out[i] = x[0] + ... + x[i].
Tensor cumsum(Tensor x, std::int64_t axis);
// The k largest values along `axis`, largest first, and their indices (i32), as PyTorch's topk
// (largest, sorted). Ties: the lower index first. Gradients flow to the chosen positions.
struct TopK {
  Tensor values;
  Tensor indices;
};
TopK topk(Tensor x, Size k, std::int64_t axis = -1);

// Shape. `reshape` allows one -1; `swapAxes` is PyTorch's transpose.
Tensor reshape(Tensor x, Sizes shape);
// torch.flatten: axes startDim..endDim (inclusive, negative from the end) merged into one, a view
// (`flatten(x, 1)` is nn.Flatten's [N, C, H, W] -> [N, C·H·W]; named axes merge their names).
Tensor flatten(Tensor x, std::int64_t startDim = 0, std::int64_t endDim = -1);
// torch.squeeze(x, dim) / unsqueeze(x, dim): a size-1 axis removed / inserted (views);
// `unsqueeze(x, -1)` adds a last axis.
Tensor squeeze(Tensor x, std::int64_t dim);
Tensor unsqueeze(Tensor x, std::int64_t dim);
Tensor permute(Tensor x, std::vector<std::int64_t> axes);
Tensor swapAxes(Tensor x, std::int64_t a, std::int64_t b);
// NumPy broadcasting to `shape` (a view, no copy): `broadcastTo(cls, {B, 1, D})`. `expand` is
// PyTorch's spelling, where -1 keeps an axis: `expand(cls, {B, -1, -1})`.
Tensor broadcastTo(Tensor x, Sizes shape);
Tensor expand(Tensor x, Sizes shape);
// Grouped-query attention: [..., Hkv, T, Dh] -> [..., Hkv·repeats, T, Dh], each key/value head
// repeated for the `repeats` query heads that share it (LLaMA's repeat_kv).
Tensor repeatKv(Tensor x, Size repeats);

// torch.einsum for one or two operands: `einsum("bhqd,bhkd->bhqk", {q, k})`, `einsum("ij->ji",
// {x})`; without "->" the output is the letters that appear once, in alphabetical order. Each
// letter one size in every operand (no broadcasting), at most once per operand (no diagonals),
// no ellipsis. Lowered to sum, permute, reshape and one matmul.
Tensor einsum(std::string_view equation, const std::vector<Tensor>& operands);
// Linear algebra: [..., M, K] · [..., K, N]; the batch axes broadcast as in PyTorch
// ([B, Hkv, G, T, Dh] · [B, Hkv, 1, Dh, T], [B, M, K] · [K, N]).
Tensor matmul(Tensor a, Tensor b);

// Indexing.
Tensor oneHot(Tensor indices, Size depth, DType dtype = DType::f32);
// 0, 1, ..., n - 1; and PyTorch's arange(start, end, step): ceil((end - start) / step) values
// start, start + step, ... (an empty range or a step of 0 is an error; i32 takes whole numbers).
Tensor arange(Size n, DType dtype = DType::i32);
Tensor arange(double start, double end, double step = 1.0, DType dtype = DType::i32);
// paddingIdx (F.embedding's padding_idx, negative from the end): that row reads as zeros and gets
// no gradient.
Tensor embedding(Tensor table, Tensor indices, std::optional<std::int64_t> paddingIdx = std::nullopt);
Tensor takeAlongAxis(Tensor input, Tensor indices, std::int64_t axis);

// Constant tensors.
Tensor zeros(Sizes shape, DType dtype = DType::f32);
Tensor ones(Sizes shape, DType dtype = DType::f32);
Tensor randn(Sizes shape);

// Slicing and joining.
Tensor narrow(Tensor x, std::int64_t axis, std::int64_t start, Size length);
// Constant padding in PyTorch's F.pad order: (before, after) pairs from the last axis backwards,
// `pad(x, {1, 1, 2, 0})` pads the last axis by 1 on each side and the one before it by 2 in
// front. A negative amount crops (at most the whole axis).
Tensor pad(Tensor x, const std::vector<std::int64_t>& amounts, double value = 0.0);
Tensor concat(const std::vector<Tensor>& tensors, std::int64_t axis);
Tensor stack(const std::vector<Tensor>& tensors, std::int64_t axis);
std::vector<Tensor> split(Tensor x, const Sizes& sizes, std::int64_t axis);
// torch.chunk: `chunks` pieces of ceil(n / chunks) along `axis`, the last one smaller (fewer
// pieces when n does not allow that many): `auto qkv = chunk(proj, 3, -1);`.
std::vector<Tensor> chunk(Tensor x, std::int64_t chunks, std::int64_t axis = 0);
// torch.select / x[:, index]: one position along `dim`, that axis removed (a negative index
// counts from the end): `select(h, 1, 0)` is BERT's [CLS] state [B, D] from [B, T, D].
Tensor select(Tensor x, std::int64_t dim, std::int64_t index);

// Fused ML ops. `softmaxCausal` masks the future over the last two axes ([.., T, T]) and
// normalises; `whereCausal` only fills the future positions with `fill`.
Tensor softmax(Tensor x, std::int64_t axis = -1);
Tensor logSoftmax(Tensor x, std::int64_t axis = -1);
Tensor softmaxCausal(Tensor x);
Tensor whereCausal(Tensor x, double fill = -std::numeric_limits<double>::infinity());
// Samples an index along `axis` from logits (Gumbel-max); i32, not differentiable.
Tensor categorical(Tensor logits, std::int64_t axis = -1);

// Attention layout. splitHeads: [B, T, D] -> [B, H, T, D/H]; mergeHeads is its inverse.
Tensor splitHeads(Tensor x, Size heads);
Tensor mergeHeads(Tensor x);
struct RopeOptions {
  double base = 10000.0;
};
// Scaled dot-product attention (F.scaled_dot_product_attention): softmax(q · kᵀ / √D) · v for
// q [..., Tq, D], k [..., Tk, D], v [..., Tk, Dv] -> [..., Tq, Dv] (the leading axes broadcast as
// matmul's: [B, H, T, Dh] per head). `causal` masks the future (is_causal; Tq = Tk).
// The masks are PyTorch MultiheadAttention's, boolean, true = masked: `keyPaddingMask` [B, Tk]
// marks each sequence's padding (key_padding_mask); `mask` broadcasts to the scores [..., Tq, Tk]
// (attn_mask). A query whose every key is masked attends to them all alike (PyTorch: NaN).
struct AttentionOptions {
  bool causal = false;
  Tensor keyPaddingMask;
  Tensor mask;
};
Tensor scaledDotProductAttention(Tensor q, Tensor k, Tensor v, AttentionOptions options = {});
// Rotary position embedding on a query/key pair [.., T, Dh]; returns both rotated.
std::pair<Tensor, Tensor> rope(Tensor q, Tensor k, RopeOptions options = {});

// Convolution and pooling, NCHW. Weight [outC, inC/groups, kH, kW].
struct Conv2dOptions {
  Hw stride = 1;
  Hw padding = 0;
  std::int64_t groups = 1;
  // The spacing of the kernel's taps (PyTorch's dilation): a k-tap kernel spans d·(k - 1) + 1.
  // Last, so that options written before it existed keep their meaning.
  Hw dilation = 1;
};
Tensor conv2d(Tensor input, Tensor weight, Conv2dOptions options = {});
// Transposed convolution (PyTorch's conv_transpose2d, the input gradient of conv2d): weight
// [inC, outC/groups, kH, kW]; output [N, outC, (H-1)·stride - 2·padding + kH + outputPadding, ..]
// with 0 <= outputPadding < stride.
struct ConvTranspose2dOptions {
  Hw stride = 1;
  Hw padding = 0;
  Hw outputPadding = 0;
  std::int64_t groups = 1;
};
Tensor convTranspose2d(Tensor input, Tensor weight, ConvTranspose2dOptions options = {});
// NCL: input [N, C, L], weight [outC, inC/groups, K].
struct Conv1dOptions {
  std::int64_t stride = 1;
  std::int64_t padding = 0;
  std::int64_t groups = 1;
  std::int64_t dilation = 1;  // as Conv2dOptions'
};
Tensor conv1d(Tensor input, Tensor weight, Conv1dOptions options = {});
// ceilMode (PyTorch's ceil_mode): a last, partial window where the windows leave input rows or
// columns out (it must start inside the input or its left padding), e.g. 112 -> 56, not 55, for
// kernel 3 and stride 2.
struct MaxPool2dOptions {
  std::optional<Hw> stride;  // default: the kernel size
  Hw padding = 0;
  bool ceilMode = false;
};
Tensor maxPool2d(Tensor x, Hw kernel, MaxPool2dOptions options = {});
// Window means; padding counts as zeros in every window's kH·kW (PyTorch's default,
// count_include_pad = true); a ceilMode window past the padding divides by the part inside it.
struct AvgPool2dOptions {
  std::optional<Hw> stride;  // default: the kernel size
  Hw padding = 0;
  bool ceilMode = false;
};
Tensor avgPool2d(Tensor x, Hw kernel, AvgPool2dOptions options = {});
// Average pooling to an output size; {1, 1} is global average pooling. Each output size must
// divide its input size (then PyTorch's adaptive windows are the kernel = stride = in/out windows
// of avgPool2d); other sizes are an error.
Tensor adaptiveAvgPool2d(Tensor x, Hw outputSize);
Tensor nearestUpsample2d(Tensor x, std::int64_t factor);
// F.interpolate(x, scale_factor=factor, mode='bilinear') and nn.Upsample(mode='bilinear') of
// x [N, C, H, W] (f32) to [N, C, H·factor, W·factor]. alignCorners: PyTorch's align_corners (the
// corner pixels' centres map onto each other; default false, as in PyTorch).
struct BilinearUpsampleOptions {
  bool alignCorners = false;
};
Tensor bilinearUpsample2d(Tensor x, std::int64_t factor, BilinearUpsampleOptions options = {});
// F.pixel_shuffle / nn.PixelShuffle: x [..., C·r², H, W] to [..., C, H·r, W·r], channel
// c·r² + i·r + j of pixel (y, x) becoming channel c of pixel (y·r + i, x·r + j) — the sub-pixel
// convolution's upsampling (ESPCN). pixelUnshuffle (F.pixel_unshuffle) is its inverse, [..., C,
// H·r, W·r] to [..., C·r², H, W]. One copy each, no arithmetic.
Tensor pixelShuffle(Tensor x, std::int64_t upscaleFactor);
Tensor pixelUnshuffle(Tensor x, std::int64_t downscaleFactor);
// 1-d pooling of x [N, C, L] (F.max_pool1d, F.avg_pool1d; padding counts as zeros in the mean):
// the 2-d pooling of height 1.
struct Pool1dOptions {
  std::optional<std::int64_t> stride;  // default: the kernel size
  std::int64_t padding = 0;
  bool ceilMode = false;  // as the 2-d pools'
};
Tensor maxPool1d(Tensor x, std::int64_t kernel, Pool1dOptions options = {});
Tensor avgPool1d(Tensor x, std::int64_t kernel, Pool1dOptions options = {});

// Stochastic and gradient control.
Tensor dropout(Tensor x, double p);
Tensor stopGradient(Tensor x);
// Names a tensor so the training step also returns it (and dead-code elimination keeps it).
Tensor capture(std::string_view name, Tensor x);

// Losses. logits/logProbs [..., C], targets i32 [...].
enum class Reduction : std::uint8_t { mean, sum, none };
struct LossOptions {
  Reduction reduction = Reduction::mean;
};
Tensor crossEntropy(Tensor logits, Tensor targets, LossOptions options = {});
Tensor nllLoss(Tensor logProbs, Tensor targets, LossOptions options = {});
// Element-wise losses of a prediction and an f32 target of the same shape (PyTorch's mse_loss,
// l1_loss, binary_cross_entropy_with_logits; targets in [0, 1] for the last).
Tensor mseLoss(Tensor prediction, Tensor target, LossOptions options = {});
Tensor l1Loss(Tensor prediction, Tensor target, LossOptions options = {});
Tensor binaryCrossEntropyWithLogits(Tensor logits, Tensor targets, LossOptions options = {});
// PyTorch's huber_loss (0.5·d² for |d| <= delta, delta·(|d| - delta/2) beyond; DQN's loss) and
// smooth_l1_loss (the same of delta = beta, divided by beta; beta = 0: the L1 loss).
struct HuberLossOptions {
  double delta = 1.0;
  Reduction reduction = Reduction::mean;
};
Tensor huberLoss(Tensor prediction, Tensor target, HuberLossOptions options = {});
struct SmoothL1LossOptions {
  double beta = 1.0;
  Reduction reduction = Reduction::mean;
};
Tensor smoothL1Loss(Tensor prediction, Tensor target, SmoothL1LossOptions options = {});

// True while the training graph is traced, false for the inference graph. Layers with
// train-only behaviour (BatchNorm2d) read it; specs may too.
bool isTraining();

// Group normalisation of x [N, C, ...] (PyTorch's group_norm): each sample's channels in `groups`
// groups of C/groups, each normalised by its own mean and biased variance, then scaled and
// shifted per channel by weight and bias [C] — both, or neither (undefined tensors).
Tensor groupNorm(Tensor x, std::int64_t groups, Tensor weight = {}, Tensor bias = {},
                 double eps = 1e-5);

// ===== Parameters, modules and layers ===========================================================

// How a parameter is initialised (used by the reference evaluator; tracing ignores values).
struct Init {
  enum class Kind : std::uint8_t { automatic, zeros, ones, normal, uniform };
  Kind kind = Kind::automatic;  // layers: their PyTorch default; a raw param: normal(0, 0.02)
  double a = 0.0;               // normal: std; uniform: low
  double b = 0.0;               // uniform: high
};
namespace init {
inline Init zeros() { return {Init::Kind::zeros, 0, 0}; }
inline Init ones() { return {Init::Kind::ones, 0, 0}; }
inline Init normal(double std) { return {Init::Kind::normal, std, 0}; }
inline Init uniform(double low, double high) { return {Init::Kind::uniform, low, high}; }
}  // namespace init

struct ParamOptions {
  Init init = {};
  // Whether weight decay applies. Default: yes for matrices (rank >= 2), no for vectors.
  std::optional<bool> decay;
};

// A Module owns named parameters and named child modules. C++ has no reflection, so every
// parameter and child is registered under its name when the model is built:
//
//   struct Block : Module {
//     LayerNorm ln{"ln", D};
//     Linear fc{"fc", D, 4 * D};
//     Tensor gate = param("gate", {D});
//   };
//   struct Net : Module {
//     std::vector<Block> layers = list<Block>("layers", 12);  // params "layers.3.fc.weight"
//     Block head = child<Block>("head");
//   };
//
// Parameters exist only while the model is built (by NNDNA_SPEC), never inside a forward.
class Module {
 public:
  Module();
  // A loaded model is owned as unique_ptr<Module> (LoadedSpec): deleting it through the base
  // must run the model's own destructor.
  virtual ~Module() = default;
  // A copy would share the original's parameters under the original's names (two layers, one
  // set of weights, counted once): copying a module is a compile error at the copy's line.
  // Build another layer instead (`Linear b{"b", D, D};`), or hold a reference.
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;
  Module(Module&&) noexcept = default;
  Module& operator=(Module&&) noexcept = default;
  // The dotted path of this module in the model ("" for the root, "layers.3").
  const Text& path() const { return path_; }

 protected:
  Tensor param(std::string_view name, Sizes shape, ParamOptions options = {});
  // Non-trainable state updated by the training step (BatchNorm running statistics).
  Tensor state(std::string_view name, Sizes shape, Init init = init::zeros());

  // A child module named `name`. Built-in layers take their name as the first constructor
  // argument, so `child<Linear>("proj", 8, 8)` works as well as `child<Block>("block")`.
  template <class M, class... Args>
  M child(std::string_view name, Args&&... args) {
    if constexpr (std::is_constructible_v<M, std::string_view, Args&&...>) {
      // Named under this module, also when this module is a built-in layer (which takes its own
      // path without a scope around its construction).
      PathScope scope(path_);
      return M(name, std::forward<Args>(args)...);
    } else {
      PathScope scope(qualify(name));
      return M(std::forward<Args>(args)...);
    }
  }

  // `count` children named `name.0`, `name.1`, ... (`list<Linear>("layers", 8, D, D)` gives
  // parameters "layers.3.weight"; `list<Block>("layers", 12)` gives "layers.3.<block params>").
  template <class M, class... Args>
    requires(!(sizeof...(Args) == 1 && (std::is_invocable_r_v<M, const Args&, std::int64_t> && ...)))
  std::vector<M> list(std::string_view name, std::int64_t count, const Args&... args) {
    std::vector<M> out;
    out.reserve(reservedEntries(name, count));
    const Text base = qualify(name);
    for (std::int64_t i = 0; i < count; ++i) {
      if constexpr (std::is_constructible_v<M, std::string_view, const Args&...>) {
        PathScope scope(base);
        out.push_back(M(entryName(i).view(), args...));
      } else {
        PathScope scope(entryPath(base, i));
        out.push_back(M(args...));
      }
    }
    return out;
  }

  // `count` children made by `make(i)`, so that they may differ (a ResNet stage whose first block
  // downsamples, an MLP of widths [784, 256, 64, 10]). Child i is named `name.i`; a built-in
  // layer made by the factory takes the empty name, which makes it the entry itself:
  //   list<Bottleneck>("layer2", 4, [](std::int64_t i) { return Bottleneck(i == 0 ? 256 : 512, 128, i == 0 ? 2 : 1); })
  //   list<Linear>("fc", 3, [&](std::int64_t i) { return Linear("", widths[i], widths[i + 1]); })
  template <class M, class Factory>
    requires std::is_invocable_r_v<M, Factory&, std::int64_t>
  std::vector<M> list(std::string_view name, std::int64_t count, Factory make) {
    std::vector<M> out;
    out.reserve(reservedEntries(name, count));
    const Text base = qualify(name);
    for (std::int64_t i = 0; i < count; ++i) {
      PathScope scope(entryPath(base, i), /*listEntry=*/true);
      out.push_back(make(i));
    }
    return out;
  }

  // Layers are named relative to the module that is being built.
  explicit Module(std::string_view name);

 private:
  // Sets the path that modules constructed in its lifetime take (restores the old one after).
  class PathScope {
   public:
    // `listEntry`: the first module constructed in the scope is a list entry, which a built-in
    // layer given the empty name becomes (list with a factory).
    explicit PathScope(Text path, bool listEntry = false);
    ~PathScope();
    PathScope(const PathScope&) = delete;
    PathScope& operator=(const PathScope&) = delete;

   private:
    Text previous_;
    bool previousEntry_ = false;
  };
  Text qualify(std::string_view name) const;
  // The room a list of `count` entries reserves up front; a negative count is the spec's error
  // (named at its line), a huge one grows as its entries are built.
  static std::size_t reservedEntries(std::string_view name, std::int64_t count);
  // Entry `index` of a list: its name ("3") and its path under `base` ("layers.3").
  static Text entryName(std::int64_t index);
  static Text entryPath(std::string_view base, std::int64_t index);

  Text path_;
};

struct LinearOptions {
  bool bias = true;
  Init init = {};
  std::optional<bool> decay;  // weight decay of the weight (default yes; the bias never)
};
// y = x · W + b, with W stored [in, out].
class Linear : public Module {
 public:
  Linear() = default;
  Linear(std::string_view name, Size in, Size out, LinearOptions options = {});
  Tensor operator()(Tensor x) const;

  Tensor weight;
  Tensor bias;  // undefined when bias = false
};

struct LayerNormOptions {
  double eps = 1e-5;
  bool bias = true;
  std::optional<bool> decay;  // default: no decay
};
// nn.LayerNorm: over the last axis (`LayerNorm("ln", D)`), or over the last axes of a
// normalized shape (`LayerNorm("ln", {C, H, W})`, PyTorch's `LayerNorm([C, H, W])`: weight and
// bias of that shape, one mean and variance per sample over all of it). `{D}` is `D`.
class LayerNorm : public Module {
 public:
  LayerNorm() = default;
  LayerNorm(std::string_view name, Size dim, LayerNormOptions options = {});
  // A braced list picks this one (`{D}` too): a list converting to an initializer_list ranks
  // above one converting to Size.
  LayerNorm(std::string_view name, std::initializer_list<Size> normalizedShape, LayerNormOptions options = {});
  LayerNorm(std::string_view name, Sizes normalizedShape, LayerNormOptions options = {});
  Tensor operator()(Tensor x) const;

  Tensor weight;  // the normalized shape
  Tensor bias;    // the normalized shape, undefined when bias = false
  double eps = 1e-5;
};

struct RMSNormOptions {
  double eps = 1e-6;
  std::optional<bool> decay;  // default: no decay
};
class RMSNorm : public Module {
 public:
  RMSNorm() = default;
  RMSNorm(std::string_view name, Size dim, RMSNormOptions options = {});
  Tensor operator()(Tensor x) const;

  Tensor weight;
  double eps = 1e-6;
};

struct EmbeddingOptions {
  Init init = {};
  std::optional<bool> decay;  // default: decay
  // nn.Embedding's padding_idx (negative from the end): the row of the padding token, read as
  // zeros and never trained.
  std::optional<std::int64_t> paddingIdx;
};
class Embedding : public Module {
 public:
  Embedding() = default;
  Embedding(std::string_view name, Size vocab, Size dim,
            EmbeddingOptions options = {});
  Tensor operator()(Tensor indices) const;

  Tensor weight;  // [vocab, dim]
  std::optional<std::int64_t> paddingIdx;
};

struct Conv2dLayerOptions {
  Hw stride = 1;
  Hw padding = 0;
  std::int64_t groups = 1;
  bool bias = true;
  Init init = {};
  std::optional<bool> decay;  // weight decay of the kernel (default yes; the bias never)
  Hw dilation = 1;            // as Conv2dOptions'
};
class Conv2d : public Module {
 public:
  Conv2d() = default;
  Conv2d(std::string_view name, Size inChannels, Size outChannels, Hw kernel,
         Conv2dLayerOptions options = {});
  Tensor operator()(Tensor x) const;

  Tensor weight;  // [outC, inC/groups, kH, kW]
  Tensor bias;    // [outC], undefined when bias = false
  Conv2dOptions conv;
};

struct Conv1dLayerOptions {
  std::int64_t stride = 1;
  std::int64_t padding = 0;
  std::int64_t groups = 1;
  bool bias = true;
  Init init = {};
  std::optional<bool> decay;  // weight decay of the kernel (default yes; the bias never)
  std::int64_t dilation = 1;  // as Conv2dOptions'
};
class Conv1d : public Module {
 public:
  Conv1d() = default;
  Conv1d(std::string_view name, Size inChannels, Size outChannels,
         std::int64_t kernel, Conv1dLayerOptions options = {});
  Tensor operator()(Tensor x) const;

  Tensor weight;  // [outC, inC/groups, K]
  Tensor bias;    // [outC], undefined when bias = false
  Conv1dOptions conv;
};

struct ConvTranspose2dLayerOptions {
  Hw stride = 1;
  Hw padding = 0;
  Hw outputPadding = 0;
  std::int64_t groups = 1;
  bool bias = true;
  Init init = {};
  std::optional<bool> decay;  // weight decay of the kernel (default yes; the bias never)
};
// nn.ConvTranspose2d: upsamples (stride 2, kernel 2 doubles H and W).
class ConvTranspose2d : public Module {
 public:
  ConvTranspose2d() = default;
  ConvTranspose2d(std::string_view name, Size inChannels, Size outChannels,
                  Hw kernel, ConvTranspose2dLayerOptions options = {});
  Tensor operator()(Tensor x) const;

  Tensor weight;  // [inC, outC/groups, kH, kW]
  Tensor bias;    // [outC], undefined when bias = false
  ConvTranspose2dOptions conv;
};

// Dropout with probability p while training (isTraining()), the identity at inference, as
// PyTorch's nn.Dropout in train() and eval() mode. No parameters.
class Dropout : public Module {
 public:
  Dropout() = default;
  Dropout(std::string_view name, double p);
  Tensor operator()(Tensor x) const;

  double p = 0.5;
};

struct BatchNorm2dOptions {
  double eps = 1e-5;
  double momentum = 0.1;  // running-statistics update rate (PyTorch's convention)
  // PyTorch's bn.eval() inside a training loop (fine-tuning a pretrained backbone): the training
  // trace too uses the running statistics and does not update them. Gradients still reach the
  // input, and weight and bias keep training, as under PyTorch's eval() (which freezes them only
  // with a separate requires_grad_(False)).
  bool frozen = false;
};
// Batch normalisation over N, H, W of NCHW input. Training uses the batch statistics (and the
// training step updates the running ones) unless frozen; inference uses the running statistics.
class BatchNorm2d : public Module {
 public:
  BatchNorm2d() = default;
  BatchNorm2d(std::string_view name, Size channels, BatchNorm2dOptions options = {});
  Tensor operator()(Tensor x) const;

  Tensor weight;
  Tensor bias;
  Tensor runningMean;
  Tensor runningVar;
  BatchNorm2dOptions options;
};

// nn.BatchNorm1d: BatchNorm2d's statistics over N (and L) of [N, C] or [N, C, L] input, with the
// same parameters, running statistics and options (the batch-norm ops on a [N, C, L, 1] view).
using BatchNorm1dOptions = BatchNorm2dOptions;
class BatchNorm1d : public Module {
 public:
  BatchNorm1d() = default;
  BatchNorm1d(std::string_view name, Size features, BatchNorm1dOptions options = {});
  Tensor operator()(Tensor x) const;

  Tensor weight;
  Tensor bias;
  Tensor runningMean;
  Tensor runningVar;
  BatchNorm1dOptions options;
};

struct GroupNormOptions {
  double eps = 1e-5;
  bool affine = true;  // learnable per-channel weight (ones) and bias (zeros)
  std::optional<bool> decay;  // default: no decay
};
// nn.GroupNorm(numGroups, numChannels): the same in training and inference (no running
// statistics). numChannels must be divisible by numGroups.
class GroupNorm : public Module {
 public:
  GroupNorm() = default;
  GroupNorm(std::string_view name, std::int64_t numGroups, Size numChannels,
            GroupNormOptions options = {});
  Tensor operator()(Tensor x) const;

  Tensor weight;  // [C], undefined when affine = false
  Tensor bias;    // [C], undefined when affine = false
  std::int64_t numGroups = 1;
  double eps = 1e-5;
};

struct InstanceNormOptions {
  double eps = 1e-5;
  bool affine = false;        // PyTorch's default: no weight and bias
  std::optional<bool> decay;  // default: no decay
};
// nn.InstanceNorm2d(channels): each sample's each channel of x [N, C, H, W] normalised over H and
// W (a group norm of one channel per group); no running statistics, as PyTorch's default.
class InstanceNorm2d : public Module {
 public:
  InstanceNorm2d() = default;
  InstanceNorm2d(std::string_view name, Size channels, InstanceNormOptions options = {});
  Tensor operator()(Tensor x) const;

  Tensor weight;  // [C], undefined unless affine
  Tensor bias;    // [C], undefined unless affine
  Size channels = 0;
  double eps = 1e-5;
};

struct MultiheadAttentionOptions {
  bool bias = true;  // in_proj_bias and out_proj's bias
  // PyTorch's kdim and vdim: the features of the key and the value (default: embedDim).
  std::optional<Size> kdim;
  std::optional<Size> vdim;
};
// nn.MultiheadAttention(embedDim, numHeads, batch_first=True): query [B, Tq, E], key [B, Tk, kdim]
// and value [B, Tk, vdim] -> [B, Tq, E]; self-attention is `attn(x, x, x)`, causal self-attention
// `attn(x, x, x, {.causal = true})`. Parameters as PyTorch's (4E² + 4E with biases), stored
// input-first as Linear's: in_proj_weight [E, 3E] (the q, k and v projections side by side),
// in_proj_bias [3E], out_proj (a Linear E -> E). With a kdim or vdim other than E, PyTorch's three
// separate weights instead of in_proj_weight: q_proj_weight [E, E], k_proj_weight [kdim, E],
// v_proj_weight [vdim, E] (2E² + (kdim + vdim)·E + 4E with biases). E must be divisible by
// numHeads.
class MultiheadAttention : public Module {
 public:
  MultiheadAttention() = default;
  MultiheadAttention(std::string_view name, Size embedDim, Size numHeads, MultiheadAttentionOptions options = {});
  Tensor operator()(Tensor query, Tensor key, Tensor value, AttentionOptions options = {}) const;

  Tensor inProjWeight;  // [E, 3E], undefined with a kdim or vdim other than E
  Tensor qProjWeight;   // [E, E]     } only with a kdim or vdim other than E
  Tensor kProjWeight;   // [kdim, E]  }
  Tensor vProjWeight;   // [vdim, E]  }
  Tensor inProjBias;    // [3E], undefined when bias = false
  Linear outProj;
  Size numHeads = 1;
};

struct TransformerEncoderLayerOptions {
  Size dimFeedforward = 2048;
  double dropout = 0.1;      // after the attention, inside and after the feed-forward block
  bool gelu = false;         // the feed-forward activation: relu (PyTorch's default) or gelu
  bool normFirst = false;    // LayerNorm before each block (pre-norm) instead of after the residual
  double layerNormEps = 1e-5;
  bool bias = true;          // of the attention, the linears and the norms
};
// nn.TransformerEncoderLayer(dModel, nhead, batch_first=True): x [B, T, D] -> [B, T, D], a
// self-attention block and a feed-forward block, each with dropout, a residual add and a
// LayerNorm (after the add, or before the block with normFirst). `{.causal = true}` is a causal
// mask (is_causal). Parameters as PyTorch's: self_attn (MultiheadAttention), linear1 [D, F],
// linear2 [F, D], norm1, norm2. nn.TransformerEncoder is a list of them:
// `list<TransformerEncoderLayer>("layers", N, D, H)`.
class TransformerEncoderLayer : public Module {
 public:
  TransformerEncoderLayer() = default;
  TransformerEncoderLayer(std::string_view name, Size dModel, Size nhead, TransformerEncoderLayerOptions options = {});
  Tensor operator()(Tensor x, AttentionOptions options = {}) const;

  MultiheadAttention selfAttn;
  Linear linear1, linear2;
  LayerNorm norm1, norm2;
  Dropout dropout, dropout1, dropout2;
  bool normFirst = false;
  bool gelu = false;
};

using TransformerDecoderLayerOptions = TransformerEncoderLayerOptions;
// nn.TransformerDecoderLayer(dModel, nhead, batch_first=True): tgt [B, T, D] and memory [B, S, D]
// (the encoder's output) -> [B, T, D]: a self-attention block, an attention block over the memory
// and a feed-forward block, each with dropout, a residual add and a LayerNorm (after the add, or
// before the block with normFirst). `{.causal = true}` masks the self-attention (tgt_is_causal,
// what a decoder that predicts the next token needs). Parameters as PyTorch's: self_attn and
// multihead_attn (MultiheadAttention), linear1 [D, F], linear2 [F, D], norm1, norm2, norm3.
// nn.TransformerDecoder is a list of them: `list<TransformerDecoderLayer>("layers", N, D, H)`.
class TransformerDecoderLayer : public Module {
 public:
  TransformerDecoderLayer() = default;
  TransformerDecoderLayer(std::string_view name, Size dModel, Size nhead, TransformerDecoderLayerOptions options = {});
  // `memoryAttention`: the attention over the memory (its keyPaddingMask: the source's padding).
  Tensor operator()(Tensor tgt, Tensor memory, AttentionOptions selfAttention = {},
                    AttentionOptions memoryAttention = {}) const;

  MultiheadAttention selfAttn, multiheadAttn;
  Linear linear1, linear2;
  LayerNorm norm1, norm2, norm3;
  Dropout dropout, dropout1, dropout2, dropout3;
  bool normFirst = false;
  bool gelu = false;
};

struct RecurrentOptions {
  std::int64_t numLayers = 1;  // stacked layers: each reads the sequence of the one below
  bool bias = true;            // bias_ih and bias_hh of every layer
};
// nn.LSTM(inputSize, hiddenSize, num_layers, batch_first=True) from a zero state: x [B, T, I] ->
// the top layer's hidden state at every step, [B, T, H] (PyTorch's `output`; its last step is
// that layer's h_n). The steps are unrolled in the trace; the diagram draws the call as the one
// box of the line that makes it, as any layer. Parameters as PyTorch's (gates i, f, g, o), stored input-first as Linear's: per layer k,
// weight_ih_l{k} [I (H above the first layer), 4H], weight_hh_l{k} [H, 4H], bias_ih_l{k} and
// bias_hh_l{k} [4H].
//
// With a state, as PyTorch's `output, (h_n, c_n) = lstm(x, (h_0, c_0))`: `auto [out, state] =
// lstm(x, {h0, c0});`. h and c are [numLayers, B, H], one row per layer (an undefined tensor
// starts that part from zeros: `lstm(x, {})` gives h_n and c_n from a zero state), and the
// result's state is the last step's of every layer: an encoder's state is a decoder's start.
struct LSTMState {
  Tensor h, c;
};
struct LSTMResult {
  Tensor output;  // [B, T, H]
  LSTMState state;
};
class LSTM : public Module {
 public:
  LSTM() = default;
  LSTM(std::string_view name, Size inputSize, Size hiddenSize, RecurrentOptions options = {});
  Tensor operator()(Tensor x) const;
  LSTMResult operator()(Tensor x, LSTMState initial) const;

  std::vector<Tensor> weightIh, weightHh, biasIh, biasHh;  // one per layer (biases: none without bias)
  Size hiddenSize = 0;

 private:
  LSTMResult run(const Tensor& x, const LSTMState& initial, bool withState) const;
};

// nn.GRU, as LSTM with gates r, z, n (3H wide): n = tanh(x·W_in + b_in + r ⊙ (h·W_hn + b_hn)),
// h' = (1 - z) ⊙ n + z ⊙ h. With a state, `auto [out, h] = gru(x, h0);` as PyTorch's
// `output, h_n = gru(x, h_0)`: h0 and h_n [numLayers, B, H] (h0 undefined: zeros).
struct GRUResult {
  Tensor output;  // [B, T, H]
  Tensor h;       // h_n
};
class GRU : public Module {
 public:
  GRU() = default;
  GRU(std::string_view name, Size inputSize, Size hiddenSize, RecurrentOptions options = {});
  Tensor operator()(Tensor x) const;
  GRUResult operator()(Tensor x, Tensor initial) const;

  std::vector<Tensor> weightIh, weightHh, biasIh, biasHh;
  Size hiddenSize = 0;

 private:
  GRUResult run(const Tensor& x, const Tensor& initial, bool withState) const;
};

// ===== Specs ====================================================================================
//
// Every spec file compiles this part, so it is written for the compiler's sake too: the types a
// spec body constructs (InputDecl, DimDecl, LearningRate, the optimizer, SpecInputs, SpecDims) have their
// constructors, copies and destructors in libnndna, and a forward function is held by ForwardFn
// rather than std::function. A spec's compile then instantiates almost no library templates
// (docs/specrun.md, "Why the spec header is shaped this way").

struct InputDecl {
  Text name;
  Shape shape;
  DType dtype = DType::f32;
  std::vector<Text> names;  // per axis when some axis is a named dim (ir::DimNames)

  InputDecl();
  InputDecl(std::string_view name_, std::initializer_list<Size> shape_,
            DType dtype_ = DType::f32);
  InputDecl(std::string_view name_, const Shape& shape_, DType dtype_ = DType::f32);
  InputDecl(const InputDecl&);
  InputDecl(InputDecl&&) noexcept;
  InputDecl& operator=(const InputDecl&);
  InputDecl& operator=(InputDecl&&) noexcept;
  ~InputDecl();
};

// The named inputs of a forward function.
class Inputs {
 public:
  Inputs() = default;
  explicit Inputs(std::vector<std::pair<Text, Tensor>> tensors)
      : tensors_(std::move(tensors)) {}
  // The input declared under `name`; an unknown name is a trace error that lists the known ones.
  Tensor operator[](std::string_view name) const;
  const std::vector<std::pair<Text, Tensor>>& all() const { return tensors_; }

 private:
  std::vector<std::pair<Text, Tensor>> tensors_;
};

// A learning rate: a constant or a schedule over steps, following PyTorch's formulas.
struct LearningRate {
  enum class Kind : std::uint8_t { constant, linear, cosineAnnealing, staircase, multiStep };
  Kind kind = Kind::constant;
  double value = 1e-3;  // constant; initial rate (peak) of the schedules
  double end = 0.0;     // linear: final rate; cosineAnnealing: minimum rate
  std::int64_t steps = 0;  // linear: steps to reach `end`; cosine: T_max; staircase: step size
  double gamma = 0.1;      // staircase / multiStep decay factor
  std::vector<std::int64_t> milestones;  // multiStep

  LearningRate();
  LearningRate(double constant);  // NOLINT: implicit (`.lr = 1e-3`)
  LearningRate(const LearningRate&);
  LearningRate(LearningRate&&) noexcept;
  LearningRate& operator=(const LearningRate&);
  LearningRate& operator=(LearningRate&&) noexcept;
  ~LearningRate();
};
namespace lr {
// LinearLR: from `start` to `end` over `steps`, then constant.
LearningRate linear(double start, double end, std::int64_t steps);
// CosineAnnealingLR: from `max` down to `min` over `steps` (T_max).
LearningRate cosineAnnealing(double max, double min, std::int64_t steps);
// StepLR: `initial * gamma^(step / stepSize)`.
LearningRate staircase(double initial, std::int64_t stepSize, double gamma = 0.1);
// MultiStepLR: multiply by `gamma` at each milestone.
LearningRate multiStep(double initial, std::vector<std::int64_t> milestones, double gamma = 0.1);
}  // namespace lr
// The rate at a 0-based training step.
double learningRateAt(const LearningRate& rate, std::int64_t step);

// Every optimizer takes `clipGradNorm`: before the update, the gradients of all parameters are
// scaled by min(1, clipGradNorm / (‖g‖ + 1e-6)), ‖g‖ their joint L2 norm (PyTorch's
// clip_grad_norm_); 0 = no clipping. The clipping is ops of the training graph.
struct Adam {
  LearningRate lr = 1e-3;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double clipGradNorm = 0.0;
};
struct AdamW {
  LearningRate lr = 1e-3;
  double weightDecay = 0.01;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double clipGradNorm = 0.0;
};
struct SGD {
  LearningRate lr = 1e-2;
  double momentum = 0.0;
  bool nesterov = false;
  // L2 penalty added to the gradient (g + weightDecay · p) of the parameters that decay
  // (ParamOptions::decay: matrices by default), as PyTorch's SGD weight_decay.
  double weightDecay = 0.0;
  double clipGradNorm = 0.0;
};
using Optimizer = std::variant<Adam, AdamW, SGD>;

// The optimizer field of a Spec: an Optimizer that a spec sets from Adam{...}, AdamW{...},
// SGD{...} or an Optimizer. Stored in place but opaque here, so that a spec's compile does not
// instantiate std::variant's machinery; libnndna reads it with get().
class SpecOptimizer {
 public:
  SpecOptimizer();  // Adam{}
  SpecOptimizer(const Adam& adam);     // NOLINT: implicit (`.optimizer = Adam{}`)
  SpecOptimizer(const AdamW& adamW);   // NOLINT: implicit
  SpecOptimizer(const SGD& sgd);       // NOLINT: implicit
  SpecOptimizer(const Optimizer& optimizer);  // NOLINT: implicit
  SpecOptimizer(const SpecOptimizer& other);
  SpecOptimizer(SpecOptimizer&& other) noexcept;
  SpecOptimizer& operator=(const SpecOptimizer& other);
  SpecOptimizer& operator=(SpecOptimizer&& other) noexcept;
  ~SpecOptimizer();

  const Optimizer& get() const;
  Optimizer& get();
  operator const Optimizer&() const { return get(); }  // NOLINT: implicit, reads as an Optimizer

 private:
  // Room for the variant (checked in libnndna with static_asserts).
  alignas(8) unsigned char storage_[128];
};

struct DimDecl {
  std::int64_t size = 0;
  Text name;
  Text desc;
  Text color;  // optional "#rrggbb"
  // The product it was defined as ("D/H" for `Dim Dh{"Dh", D / H}`), or "" (dim_names.hpp forms).
  Text definition;

  DimDecl();
  DimDecl(std::int64_t size_, std::string_view name_, std::string_view desc_ = {},
          std::string_view color_ = {});
  DimDecl(const Dim& dim);  // NOLINT: implicit (`.dims = {B, T}`)
  DimDecl(const DimDecl&);
  DimDecl(DimDecl&&) noexcept;
  DimDecl& operator=(const DimDecl&);
  DimDecl& operator=(DimDecl&&) noexcept;
  ~DimDecl();
};

}  // namespace nndna

// Instantiated once, in libnndna (spec_types.cpp), rather than in every spec's compile.
extern template class std::vector<nndna::InputDecl>;
extern template class std::vector<nndna::DimDecl>;
extern template class std::vector<nndna::Text>;
extern template class std::vector<nndna::Size>;

namespace nndna {

namespace detail {
// A forward function over the base Module, type-erased without std::function (whose per-type
// instantiations a spec would pay for): a plain function is held as a pointer; any other
// callable (a lambda with captures) as an owned heap copy. Copies, moves and the destructor are
// in libnndna; the library turns it into an ErasedForward (trace.hpp).
class ForwardCallable {
 public:
  ForwardCallable() = default;
  ForwardCallable(const ForwardCallable& other);
  ForwardCallable(ForwardCallable&& other) noexcept;
  ForwardCallable& operator=(const ForwardCallable& other);
  ForwardCallable& operator=(ForwardCallable&& other) noexcept;
  ~ForwardCallable();

  explicit operator bool() const { return invoke_ != nullptr; }
  // Calls the function with the model, which must be of the type the function was made for.
  Tensor operator()(Module& model, const Inputs& in) const { return invoke_(*this, model, in); }

 protected:
  using Invoke = Tensor (*)(const ForwardCallable& self, Module& model, const Inputs& in);
  // How an owned callable is copied and deleted (one pair per callable type).
  struct ObjectOps {
    void* (*copy)(const void* object);
    void (*destroy)(void* object) noexcept;
  };
  using AnyFunction = void (*)();  // a function pointer, round-tripped through reinterpret_cast

  Invoke invoke_ = nullptr;
  AnyFunction function_ = nullptr;     // the plain-function case
  void* object_ = nullptr;             // the owned-callable case
  const ObjectOps* objectOps_ = nullptr;
};
}  // namespace detail

// A forward function of a model of type M: `Tensor f(M&, const Inputs&)`, a lambda with that
// signature (with or without captures), or any callable std::function would accept. Empty when
// default-constructed (`.predict = {}`).
template <class M>
class ForwardFn : public detail::ForwardCallable {
 public:
  using Function = Tensor (*)(M&, const Inputs&);

  ForwardFn() = default;
  ForwardFn(std::nullptr_t) {}  // NOLINT: implicit, like std::function
  ForwardFn(Function fn) {      // NOLINT: implicit (`.loss = lossFn`)
    setFunction(fn);
  }
  template <class F>
    requires(!std::is_same_v<std::remove_cvref_t<F>, ForwardFn> &&
             std::is_invocable_r_v<Tensor, std::decay_t<F>&, M&, const Inputs&>)
  ForwardFn(F&& f) {  // NOLINT: implicit, like std::function
    using Callable = std::decay_t<F>;
    if constexpr (std::is_convertible_v<Callable, Function>) {
      setFunction(static_cast<Function>(f));  // a lambda without captures
    } else {
      // Type erasure owns its target: the one place this header allocates by hand.
      object_ = new Callable(std::forward<F>(f));
      objectOps_ = &kObjectOps<Callable>;
      invoke_ = &callObject<Callable>;
    }
  }

  Tensor operator()(M& model, const Inputs& in) const { return invoke_(*this, model, in); }

 private:
  void setFunction(Function fn) {
    if (fn == nullptr) return;
    function_ = reinterpret_cast<AnyFunction>(fn);
    invoke_ = &callFunction;
  }
  static Tensor callFunction(const ForwardCallable& self, Module& model, const Inputs& in) {
    const auto& me = static_cast<const ForwardFn&>(self);
    return reinterpret_cast<Function>(me.function_)(static_cast<M&>(model), in);
  }
  template <class Callable>
  static Tensor callObject(const ForwardCallable& self, Module& model, const Inputs& in) {
    const auto& me = static_cast<const ForwardFn&>(self);
    return (*static_cast<Callable*>(me.object_))(static_cast<M&>(model), in);
  }
  template <class Callable>
  static constexpr ObjectOps kObjectOps = {
      [](const void* object) -> void* { return new Callable(*static_cast<const Callable*>(object)); },
      [](void* object) noexcept { delete static_cast<Callable*>(object); }};
};

// The input and dim lists of a Spec (`.inputs = {{"x", {B, D}}}`, `.dims = {B, D}`, or a
// std::vector): vectors whose constructors and destructor are defined only in libnndna (for the
// two lists below), so that a spec's compile does not instantiate std::vector's members for them
// (about 30 ms of the default spec's 0.19 s compile: docs/specrun.md).
template <class T>
class SpecList {
 public:
  SpecList();
  SpecList(std::initializer_list<T> items);  // NOLINT: implicit
  SpecList(std::vector<T> items);            // NOLINT: implicit
  SpecList(const SpecList& other);
  SpecList(SpecList&& other) noexcept;
  SpecList& operator=(const SpecList& other);
  SpecList& operator=(SpecList&& other) noexcept;
  ~SpecList();

  const std::vector<T>& items() const { return items_; }
  std::vector<T>& items() { return items_; }

 private:
  std::vector<T> items_;
};
extern template class SpecList<InputDecl>;
extern template class SpecList<DimDecl>;
using SpecInputs = SpecList<InputDecl>;
using SpecDims = SpecList<DimDecl>;

// What NNDNA_SPEC's body returns. Field order matters for designated initializers.
template <class M>
struct Spec {
  Text label;
  Text description;
  ForwardFn<M> loss;
  SpecInputs inputs;
  SpecOptimizer optimizer = Adam{};
  ForwardFn<M> predict;  // optional
  SpecInputs predictInputs;
  SpecDims dims;
};

// ----- Registration (used by NNDNA_SPEC; specs do not call these directly) ---------------------

namespace detail {
struct ErasedSpec;  // trace.hpp
struct ModelSlot;   // trace.hpp: the library's owner of a built model

// Moves a spec's fields into the library's ErasedSpec (out of line: no copies in the spec; the
// label and description are copied into the library's strings there).
void setSpec(ErasedSpec& out, Text&& label, Text&& description,
             ForwardCallable&& loss, SpecInputs&& inputs, SpecOptimizer&& optimizer,
             ForwardCallable&& predict, SpecInputs&& predictInputs, SpecDims&& dims);
// Gives a newly built model to the library, which owns it from then on. This header does not
// include <memory> (the heaviest header a spec's compile would load), so the model arrives as
// the pointer a new-expression returned and is adopted at once.
void adoptModel(ModelSlot& slot, Module* model) noexcept;

// Builds the model into `model` and evaluates the spec body into `spec`; the library runs it
// inside a parameter-registration scope.
using SpecBuildFunction = void (*)(ModelSlot& model, ErasedSpec& spec);
// `line`: the NNDNA_SPEC line, where errors in the spec body (inputs, optimizer) are reported.
bool registerSpecFunction(const char* sourceFile, int line, SpecBuildFunction build);

template <class M, Spec<M> (*Body)()>
void buildSpec(ModelSlot& model, ErasedSpec& spec) {
  adoptModel(model, new M());  // owned by `model` before anything else can throw
  Spec<M> s = Body();
  setSpec(spec, std::move(s.label), std::move(s.description), std::move(s.loss),
          std::move(s.inputs), std::move(s.optimizer), std::move(s.predict),
          std::move(s.predictInputs), std::move(s.dims));
}
}  // namespace detail

}  // namespace nndna
NNDNA_API_END

// Marks the spec of a source file (one per file): the body returns an nndna::Spec<Model>.
//
//   NNDNA_SPEC(Denoiser) {
//     return {.label = "...", .loss = lossFn, .inputs = {{"x", {B, D}}}, ...};
//   }
#define NNDNA_SPEC(Model)                                                                     \
  static ::nndna::Spec<Model> nndnaSpecBody();                                                \
  [[maybe_unused]] static const bool nndnaSpecRegistered =                                    \
      ::nndna::detail::registerSpecFunction(__FILE__, __LINE__,                                \
                                            &::nndna::detail::buildSpec<Model, &nndnaSpecBody>); \
  static ::nndna::Spec<Model> nndnaSpecBody()
