// Label and field selectors from query strings (labelSelector=, fieldSelector=): parsing,
// then matching against a small fixed label set.
#include "core/selector.h"
#include "fuzz_common.h"

using namespace k3c;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text = fuzz::as_text(data, size);
  static const Labels labels = {{"app", "web"}, {"tier", ""}, {"example.com/x", "1"}};
  static const Labels fields = {{"metadata.name", "p"}, {"metadata.namespace", "default"}};
  auto l = LabelSelector::parse(text);
  if (l.is_ok()) (void)l->matches(labels);
  auto f = FieldSelector::parse(text);
  if (f.is_ok()) (void)f->matches(fields);
  return 0;
}
