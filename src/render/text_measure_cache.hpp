// Remembers Graphviz's text measurements: a label measured once is not measured again.
//
// Debian's Graphviz measures every label through its pango plugin (the real fonts, as a browser
// on the same machine draws them), and that measuring was a quarter of a large diagram's layout
// time, although most labels of a large diagram repeat (every iteration of an unfolded loop
// has the same lines). This installs, in front of pango, a text-layout plugin that asks pango once
// per distinct (text, font, size, style) and answers repeats from memory, with pango's own sizes:
// the drawing is the same, only faster. Internal to nndna_render.
#pragma once

#include <graphviz/gvc.h>

#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace nndna::render::detail {

// Puts the cache in front of the pango text layout of `gvc` (a context from gvContext()). Returns
// false, changing nothing, when the pango plugin cannot be found; Graphviz then measures as
// before. Call with the process-wide Graphviz lock held (the cache is guarded by it).
bool installTextMeasureCache(GVC_t* gvc);

// Measurements answered from memory and asked of pango since installation (for tests).
struct TextMeasureCounts {
  std::size_t hits = 0, misses = 0;
};
TextMeasureCounts textMeasureCounts();

// One remembered measurement: the cache's key (text and font) and what pango said.
struct TextMeasure {
  std::string key;
  double width = 0, height = 0, yoffsetLayout = 0, yoffsetCenterline = 0;
};
// A forked layout process (band_layout.cpp) hands its new measurements back, so that they are
// remembered as if this process had made them: startRecordingMeasures() in the child, then
// recordedMeasures() (what pango measured since, for keys not remembered before), and
// rememberMeasures() in the parent. Call with the Graphviz lock held.
void startRecordingMeasures();
std::vector<TextMeasure> recordedMeasures();
void rememberMeasures(std::span<const TextMeasure> measures);

}  // namespace nndna::render::detail
