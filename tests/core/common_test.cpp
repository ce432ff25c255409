// Tests of the core's shared vocabulary (Result, Error).
#include <gtest/gtest.h>

#include "trainfit/base/common.h"

namespace trainfit {

TEST(Result, HoldsValueOrErrorNeverBoth) {
  Result<int> ok = 42;
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(*ok, 42);
  Result<int> bad = Error{"seq_len", "must be a positive integer"};
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().to_string(), "seq_len: must be a positive integer");
}

TEST(Units, GigabyteAndGibibyteAreDistinct) {
  EXPECT_EQ(kGB, 1e9);
  EXPECT_EQ(kGiB, 1073741824.0);
  // An "80 GB" H100 shows as 79.6 GiB in PyTorch-style units: the difference is 7.4%.
  EXPECT_NEAR(80 * kGB / kGiB, 74.506, 0.001);
}

}  // namespace trainfit
