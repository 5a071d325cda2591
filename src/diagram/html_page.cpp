// The self-contained HTML page: no CDN, no network; works from file://.
#include <nlohmann/json.hpp>

#include "diagram/html_assets.hpp"
#include "diagram/text.hpp"
#include "nndna/diagram.hpp"
#include "nndna/summary.hpp"

namespace nndna::diagram {

using detail::escapeXml;

std::string renderHtml(const Diagram& diagram) {
  return renderHtml(diagram, renderSvg(diagram));
}

std::string renderHtml(const Diagram& d, const std::string& svg) {
  // The page's data: the diagram model without its DOT (the SVG is already laid out).
  nlohmann::json data = nlohmann::json::parse(toJson(d, -1));
  data.erase("dot");
  if (data.contains("infer_alone")) data["infer_alone"].erase("dot");
  if (d.summary) data["summary"] = nlohmann::json::parse(toJson(*d.summary, -1));
  const std::string dataJson = detail::escapeJsonForScript(
      data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));

  std::string html;
  html.reserve(svg.size() + dataJson.size() + 32768);
  html += "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  html += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  html += "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
          "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n";
  html += "<title>" + escapeXml(d.label.empty() ? std::string("Model") : d.label) +
          " · nndna</title>\n<style>";
  html += detail::kPageCss;
  html += "</style>\n</head>\n<body>\n<div class=\"panel\">\n<header class=\"model-header\">\n";
  html += "<h1 class=\"model-title\">" + escapeXml(d.label) + "</h1>\n";
  html += "<div class=\"model-stats\" id=\"metrics\"></div>\n";
  if (!d.description.empty()) {
    html += "<p class=\"model-description\">" + escapeXml(d.description) + "</p>\n";
  }
  html += "</header>\n";
  // Side tabs when both sides are drawn; view tabs (the diagram, the summary table) always.
  html += "<nav class=\"tabs\">";
  if (d.hasInfer && (d.merged || d.inferAlone)) {
    html += "<button class=\"tab-btn active\" data-side=\"train\">Training graph</button>"
            "<button class=\"tab-btn\" data-side=\"infer\">Inference graph</button>"
            "<span class=\"tab-sep\"></span>";
  }
  html += "<button class=\"tab-btn view-btn active\" data-view=\"diagram\">Diagram</button>";
  if (d.summary) html += "<button class=\"tab-btn view-btn\" data-view=\"summary\">Summary</button>";
  html += "</nav>\n";
  html += "<div class=\"diagram-legend\" id=\"legend\"></div>\n";
  html += "<div class=\"diagram-legend-note\" id=\"collisions\" hidden></div>\n";
  html += "<div class=\"diagram-faded-note\" id=\"faded\" hidden></div>\n";
  html += "<div class=\"canvas show-train\" id=\"canvas\">\n";
  html += "<div class=\"zoom-controls\"><button data-zoom=\"in\" title=\"Zoom in\">+</button>"
          "<button data-zoom=\"out\" title=\"Zoom out\">&#8722;</button>"
          "<button data-zoom=\"fit\" title=\"Fit\">Fit</button></div>\n";
  html += "<div class=\"view\" data-view=\"main\">\n" + svg + "\n</div>\n";
  if (d.inferAlone) {
    html += "<div class=\"view\" data-view=\"infer\" hidden>\n" + renderSvg(*d.inferAlone) + "\n</div>\n";
  }
  html += "</div>\n";
  // Filled by the script from the data's summary (the same JSON as `nndna summary --json`).
  html += "<div class=\"summary\" id=\"summary\" hidden></div>\n";
  html += "</div>\n<div class=\"tooltip\" id=\"tooltip\" hidden></div>\n";
  html += "<script type=\"application/json\" id=\"nndna-data\">" + dataJson + "</script>\n";
  html += "<script>";
  html += detail::kPageScript;
  html += "</script>\n</body>\n</html>\n";
  return html;
}

}  // namespace nndna::diagram
