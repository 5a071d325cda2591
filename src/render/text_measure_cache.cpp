#include "render/text_measure_cache.hpp"

#include <dlfcn.h>
#include <graphviz/gvplugin.h>
#include <graphviz/gvplugin_textlayout.h>
#include <graphviz/textspan.h>

#include <cstring>
#include <string>
#include <unordered_map>

#include "render/graphviz_library.hpp"

namespace nndna::render::detail {
namespace {

// What pango computed for one span, enough for layout and the core SVG renderer.
struct Measure {
  pointf size;
  double yoffsetLayout = 0, yoffsetCenterline = 0;
};

// A large diagram has thousands of labels but few distinct ones; past this many the cache starts
// over rather than grow without bound in a long-lived server.
constexpr std::size_t kMaxEntries = 50'000;

gvtextlayout_engine_t* g_pango = nullptr;  // pango's engine, asked on a miss
std::unordered_map<std::string, Measure> g_measures;
TextMeasureCounts g_counts;
bool g_recording = false;
std::vector<std::string> g_recordedKeys;  // keys measured while recording

// The span's text and everything of its font that changes its size, as one key.
std::string keyOf(const textspan_t* span) {
  const textfont_t* font = span->font;
  std::string key(span->str ? span->str : "");
  key += '\0';
  if (font != nullptr) {
    if (font->name != nullptr) key += font->name;
    key += '\0';
    key.append(reinterpret_cast<const char*>(&font->size), sizeof font->size);
    key += static_cast<char>(font->flags);
  }
  return key;
}

void remember(std::string key, const Measure& measure) {
  if (g_measures.size() >= kMaxEntries) g_measures.clear();
  if (g_recording) g_recordedKeys.push_back(key);
  g_measures.emplace(std::move(key), measure);
}

boolean cachedTextLayout(textspan_t* span, char** fontpath) {
  std::string key = keyOf(span);
  if (auto found = g_measures.find(key); found != g_measures.end()) {
    ++g_counts.hits;
    span->size = found->second.size;
    span->yoffset_layout = found->second.yoffsetLayout;
    span->yoffset_centerline = found->second.yoffsetCenterline;
    span->layout = nullptr;
    span->free_layout = nullptr;
    return TRUE;
  }
  ++g_counts.misses;
  if (!g_pango->textlayout(span, fontpath)) return FALSE;
  // pango keeps its layout object for its own (cairo) renderers; nndna renders SVG with Graphviz's
  // core renderer, which reads only the sizes, so the object is released at once and every span
  // looks the same, measured or remembered.
  if (span->layout != nullptr && span->free_layout != nullptr) span->free_layout(span->layout);
  span->layout = nullptr;
  span->free_layout = nullptr;
  remember(std::move(key), Measure{span->size, span->yoffset_layout, span->yoffset_centerline});
  return TRUE;
}

gvtextlayout_engine_t g_cachedEngine = {cachedTextLayout};
gvplugin_installed_t g_cachedTypes[] = {
    // Quality above pango's (0), so Graphviz picks this one for "textlayout".
    {0, "textlayout", 10, &g_cachedEngine, nullptr},
    {0, nullptr, 0, nullptr, nullptr},
};
gvplugin_api_t g_cachedApis[] = {
    {API_textlayout, g_cachedTypes},
    {static_cast<api_t>(0), nullptr},
};
gvplugin_library_t g_cachedLibrary = {const_cast<char*>("nndna_text_measure_cache"), g_cachedApis};

// pango's text-layout engine, from its plugin library (loaded by Graphviz on demand; opening it
// here only takes a reference).
gvtextlayout_engine_t* findPangoEngine() {
  void* handle = ::dlopen(NNDNA_GRAPHVIZ_PLUGIN_DIR "/libgvplugin_pango.so." NNDNA_GRAPHVIZ_PLUGIN_VERSION,
                          RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) return nullptr;
  auto* library = static_cast<gvplugin_library_t*>(::dlsym(handle, "gvplugin_pango_LTX_library"));
  if (library == nullptr) return nullptr;
  for (gvplugin_api_t* api = library->apis; api != nullptr && api->types != nullptr; ++api) {
    if (api->api != API_textlayout) continue;
    for (gvplugin_installed_t* type = api->types; type->type != nullptr; ++type) {
      if (std::strcmp(type->type, "textlayout") == 0) return static_cast<gvtextlayout_engine_t*>(type->engine);
    }
  }
  return nullptr;
}

}  // namespace

bool installTextMeasureCache(GVC_t* gvc) {
  if (g_pango != nullptr) return true;
  g_pango = findPangoEngine();
  if (g_pango == nullptr || g_pango->textlayout == nullptr) {
    g_pango = nullptr;
    return false;
  }
  const GraphvizLibrary& gv = graphvizLibrary();
  gv.gvAddLibrary(gvc, &g_cachedLibrary);
  // gvContext() has already picked pango's text layout: the plugin of highest quality is picked
  // again, now that the cache is there.
  gv.gvtextlayout_select(gvc);
  return true;
}

TextMeasureCounts textMeasureCounts() { return g_counts; }

void startRecordingMeasures() {
  g_recording = true;
  g_recordedKeys.clear();
}

std::vector<TextMeasure> recordedMeasures() {
  std::vector<TextMeasure> out;
  for (const std::string& key : g_recordedKeys) {
    const auto found = g_measures.find(key);
    if (found == g_measures.end()) continue;  // the cache started over since
    const Measure& m = found->second;
    out.push_back({key, m.size.x, m.size.y, m.yoffsetLayout, m.yoffsetCenterline});
  }
  g_recording = false;
  g_recordedKeys.clear();
  return out;
}

void rememberMeasures(std::span<const TextMeasure> measures) {
  for (const TextMeasure& m : measures) {
    if (g_measures.contains(m.key)) continue;
    remember(m.key, Measure{{m.width, m.height}, m.yoffsetLayout, m.yoffsetCenterline});
  }
}

}  // namespace nndna::render::detail
