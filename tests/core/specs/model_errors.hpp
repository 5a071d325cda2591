// Models built wrongly (model_errors.cpp) and the error each must raise.
#pragma once

#include <string>
#include <vector>

#include "nndna/trace.hpp"

namespace model_errors {

struct Case {
  nndna::RegisteredSpec spec;
  int line;            // the line of model_errors.cpp that declares the culprit
  std::string op;      // TraceError::op()
  std::string detail;  // TraceError::detail()
};

std::vector<Case> cases();

}  // namespace model_errors
