// The virtual /dev and /sys tree: lookups, hiding, stat results, consistency.
#include "shim/vfs.h"

#include <dirent.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace agx::shim {
namespace {

TEST(Vfs, NormalizesLexically) {
  EXPECT_EQ(normalize_path("/a//b/../c"), "/a/c");
  EXPECT_EQ(normalize_path("/dev/dri/./renderD128"), "/dev/dri/renderD128");
  EXPECT_EQ(normalize_path("/dev/dri/"), "/dev/dri");
  EXPECT_EQ(normalize_path("/.."), "/");
  EXPECT_EQ(normalize_path("/"), "/");
}

TEST(Vfs, FindsTheRenderNodeUnderAnySpelling) {
  for (const char* p : {"/dev/dri/renderD128", "//dev/dri//renderD128", "/dev/../dev/dri/renderD128/"}) {
    PathLookup l = lookup_path(p);
    ASSERT_EQ(l.cls, PathClass::node) << p;
    EXPECT_EQ(l.node, &render_node()) << p;
  }
}

TEST(Vfs, HidesEveryOtherDrmNode) {
  for (const char* p : {"/dev/dri/card0", "/dev/dri/renderD129", "/dev/dri/by-path", "/sys/dev/char/226:0",
                        "/sys/dev/char/226:129/device", "/sys/dev/char/226:128/device/nonexistent",
                        "/dev/dri/card0/../renderD128/x", "/sys/class/drm/card0", "/sys/devices/platform/soc/x"})
    EXPECT_EQ(lookup_path(p).cls, PathClass::hidden) << p;
}

TEST(Vfs, FollowsOurLinksLikeTheKernel) {
  // /sys/dev/char/226:128 -> the class device under the platform device;
  // its `device` -> the platform device.
  PathLookup l = lookup_path("/sys/dev/char/226:128/device/uevent");
  ASSERT_EQ(l.cls, PathClass::node);
  EXPECT_EQ(l.node->path, "/sys/devices/platform/soc/206400000.gpu/uevent");
  l = lookup_path("/sys/dev/char/226:128/device/drm/renderD128/device/drm");
  ASSERT_EQ(l.cls, PathClass::node);
  EXPECT_EQ(l.node->path, "/sys/devices/platform/soc/206400000.gpu/drm");
  // The last component is not followed when asked (lstat, readlink).
  l = lookup_path("/sys/dev/char/226:128/device", false);
  ASSERT_EQ(l.cls, PathClass::node);
  EXPECT_EQ(l.node->kind, NodeKind::symlink);
  EXPECT_EQ(l.node->path, "/sys/devices/platform/soc/206400000.gpu/drm/renderD128/device");
  // ... unless the path ends in '/', which names the directory.
  l = lookup_path("/sys/dev/char/226:128/", false);
  ASSERT_EQ(l.cls, PathClass::node);
  EXPECT_EQ(l.node->kind, NodeKind::directory);
  l = lookup_path("/sys/class/drm/renderD128/dev");
  ASSERT_EQ(l.cls, PathClass::node);
  EXPECT_EQ(l.node->content, "226:128\n");
}

TEST(Vfs, RealPathsReachedThroughOurNodesAreResolved) {
  // Leaving our tree hands the resolved path to the C library.
  PathLookup l = lookup_path("/dev/dri/..");
  EXPECT_EQ(l.cls, PathClass::real);
  EXPECT_EQ(l.real_path, "/dev");
  l = lookup_path("/sys/dev/char/226:128/subsystem");  // /sys/class/drm: ours
  ASSERT_EQ(l.cls, PathClass::node);
  EXPECT_EQ(l.node->path, "/sys/class/drm");
  l = lookup_path("/sys/dev/char/226:128/device/subsystem/drivers");
  EXPECT_EQ(l.real_path, "/sys/bus/platform/drivers");
  EXPECT_EQ(lookup_path("/etc/../etc/passwd").real_path, "");  // untouched: as given
}

TEST(Vfs, LeavesOtherPathsAlone) {
  for (const char* p : {"/etc/passwd", "/dev/null", "/sys/dev/char/1:3", "dev/dri/renderD128", "/devices", "/dev"})
    EXPECT_EQ(lookup_path(p).cls, PathClass::real) << p;
  EXPECT_EQ(lookup_path(nullptr).cls, PathClass::real);
}

TEST(Vfs, StatOfTheNodeIsCharacterDevice226_128) {
  struct stat st;
  fill_stat(render_node(), &st);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  EXPECT_EQ(major(st.st_rdev), 226u);
  EXPECT_EQ(minor(st.st_rdev), 128u);
  struct statx stx;
  fill_statx(render_node(), &stx);
  EXPECT_TRUE(S_ISCHR(stx.stx_mode));
  EXPECT_EQ(stx.stx_rdev_major, 226u);
  EXPECT_EQ(stx.stx_rdev_minor, 128u);
}

TEST(Vfs, SubsystemIsALinkToThePlatformBus) {
  // libdrm's get_subsystem_type matches the last component "/platform".
  PathLookup l = lookup_path("/sys/dev/char/226:128/device/subsystem", false);
  ASSERT_EQ(l.cls, PathClass::node);
  EXPECT_EQ(l.node->link_target, "../../../../bus/platform");
  struct stat st;
  fill_stat(*l.node, &st);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
}

TEST(Vfs, DeviceUeventCarriesTheDeviceTreeIdentity) {
  PathLookup l = lookup_path("/sys/dev/char/226:128/device/uevent");
  ASSERT_EQ(l.cls, PathClass::node);
  const std::string& text = l.node->content;
  EXPECT_NE(text.find("OF_FULLNAME=/soc/gpu@206400000\n"), std::string::npos);
  EXPECT_NE(text.find("OF_COMPATIBLE_N=1\n"), std::string::npos);
  EXPECT_NE(text.find("OF_COMPATIBLE_0=apple,agx-g13g\n"), std::string::npos);
  PathLookup minor = lookup_path("/sys/dev/char/226:128/uevent");
  ASSERT_EQ(minor.cls, PathClass::node);
  EXPECT_NE(minor.node->content.find("DEVNAME=dri/renderD128\n"), std::string::npos);
}

TEST(Vfs, EveryListedEntryExistsWithItsType) {
  std::vector<std::string> todo = {"/dev/dri", "/sys/devices/platform/soc", "/sys/class/drm"};
  size_t seen = 0;
  while (!todo.empty()) {
    std::string dir = todo.back();
    todo.pop_back();
    PathLookup l = lookup_path(dir.c_str());
    ASSERT_EQ(l.cls, PathClass::node) << dir;
    for (const std::string& name : l.node->entries) {
      const std::string child = dir + "/" + name;
      PathLookup c = lookup_path(child.c_str(), false);
      ASSERT_EQ(c.cls, PathClass::node) << child;
      EXPECT_EQ(c.node->path, child);  // canonical
      seen++;
      const unsigned char type = entry_type(*l.node, name);
      switch (c.node->kind) {
        case NodeKind::directory: EXPECT_EQ(type, DT_DIR) << child; todo.push_back(child); break;
        case NodeKind::symlink: EXPECT_EQ(type, DT_LNK) << child; break;
        case NodeKind::render_node: EXPECT_EQ(type, DT_CHR) << child; break;
        case NodeKind::file: EXPECT_EQ(type, DT_REG) << child; break;
      }
    }
  }
  EXPECT_GE(seen, 10u);
}

// Random paths built from the tree's own words (and "..", ".", "//"):
// resolution always ends, and a node's canonical path resolves to itself.
TEST(Vfs, RandomPathsResolveToCanonicalNodes) {
  const char* words[] = {"dev", "dri", "renderD128", "sys", "char", "226:128", "device", "subsystem", "drm",
                         "class", "devices", "platform", "soc", "206400000.gpu", "uevent", "..", ".", "",
                         "card0", "226:0", "bus", "driver"};
  std::mt19937 rng(5);
  size_t nodes = 0;
  for (int i = 0; i < 20000; i++) {
    const char* starts[] = {"", "/dev/dri", "/sys/dev/char/226:128", "/sys/class/drm/renderD128",
                            "/sys/devices/platform/soc/206400000.gpu"};
    std::string path = starts[rng() % std::size(starts)];
    const int n = static_cast<int>(rng() % 6);
    for (int k = 0; k < n; k++) path += "/" + std::string(words[rng() % std::size(words)]);
    if (rng() % 4 == 0) path += "/";
    const bool follow = rng() % 2;
    if (path.empty()) path = "/";
    PathLookup l = lookup_path(path.c_str(), follow);
    if (l.cls != PathClass::node) continue;
    nodes++;
    PathLookup again = lookup_path(l.node->path.c_str(), false);
    ASSERT_EQ(again.node, l.node) << path;
    if (follow && !path.empty() && path.back() != '/') {
      EXPECT_NE(l.node->kind, NodeKind::symlink) << path;
    }
  }
  EXPECT_GT(nodes, 2000u);
}

}  // namespace
}  // namespace agx::shim
