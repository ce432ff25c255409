// The reality set: published configurations that trained on named hardware are never judged
// no_fit; published out-of-memory reports are. Sources per row: core/src/validation/reality.cpp.
#include <gtest/gtest.h>

#include "trainfit/validation/reality.h"

namespace trainfit {
namespace {

TEST(RealitySet, EveryPublishedRunFitsOrIsTightAndEveryOomReportDoesNotFit) {
  auto rows = reality_rows();
  ASSERT_TRUE(rows.ok()) << rows.error().to_string();
  int ran = 0, oom = 0;
  for (const auto& r : *rows) {
    if (!r.judged()) {
      EXPECT_FALSE(r.gap.empty()) << r.name;
      continue;
    }
    EXPECT_TRUE(r.pass()) << r.name << ": " << to_string(r.verdict) << ", expected " << r.expected_bytes / kGiB
                          << " GiB of " << r.usable_bytes / kGiB;
    EXPECT_FALSE(r.source.empty()) << r.name;
    (r.ran ? ran : oom) += 1;
  }
  EXPECT_GE(ran, 15) << "at least 15 published runs";
  EXPECT_GE(oom, 5) << "at least 5 published out-of-memory reports";
}

// The QLoRA headline (Dettmers et al. 2023: a 65B model on one 48 GB GPU) holds, and the same job on a 24 GB
// card is refused: the verdict separates the two.
TEST(RealitySet, QloraHeadlineSeparatesA48From24GbCard) {
  auto rows = reality_rows();
  ASSERT_TRUE(rows.ok());
  bool seen = false;
  for (const auto& r : *rows) {
    if (r.name.find("LLaMA 65B QLoRA") == std::string::npos) continue;
    seen = true;
    EXPECT_NE(r.verdict, FitVerdict::no_fit);
    MemoryBreakdown m;
    m.total = r.expected_bytes;
    m.total_high = r.high_bytes;
    EXPECT_EQ(fit_verdict(m, 24564.0 * 1048576.0), FitVerdict::no_fit);
  }
  EXPECT_TRUE(seen);
}

}  // namespace
}  // namespace trainfit
