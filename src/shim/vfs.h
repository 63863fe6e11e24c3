// The virtual part of the file system that the shim presents: the render node
// /dev/dri/renderD128 and the /sys/dev/char/226:128 entries libdrm reads to
// identify it (drmGetDevice2, drmGetDeviceNameFromFd2, drmGetNodeTypeFromFd).
// Every other DRM node (/dev/dri/*, /sys/dev/char/226:*) is hidden, so the
// client sees exactly one GPU: ours.
//
// Which paths libdrm 2.4.114 inspects, and what the kernel puts there, are
// facts from libdrm's xf86drm.c (drmOpenDevice, drmNodeIsDRM,
// drmParseSubsystemType, drmParseOFBusInfo, drmParseOFDeviceInfo,
// drmGetMinorNameForFD, sysfs_uevent_get) and Mesa's src/drm-shim/drm_shim.c.
// As on Linux, /sys/dev/char/226:128 and /sys/class/drm/renderD128 are
// symlinks to the class device under the platform device
// /sys/devices/platform/soc/206400000.gpu, and `device` and `subsystem` are
// symlinks; lookups follow them. /sys/class/drm lists only our node.
// The device-tree identity is the M1 GPU node of the upstream binding:
// "gpu@206400000", compatible "apple,agx-g13g" (torvalds/linux
// Documentation/devicetree/bindings/gpu/apple,agx.yaml and
// arch/arm64/boot/dts/apple/t8103.dtsi).
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

struct statx;

namespace agx::shim {

inline constexpr int kDrmMajor = 226;     // DRM_MAJOR on Linux
inline constexpr int kRenderMinor = 128;  // the first render node: renderD128
inline constexpr const char* kRenderNodePath = "/dev/dri/renderD128";

enum class NodeKind : uint8_t { directory, file, symlink, render_node };

struct VirtualNode {
  std::string path;                  // absolute, canonical (no symlink in it)
  NodeKind kind = NodeKind::file;
  std::string link_target;           // symlinks: the target, relative to the link's directory
  std::string content;               // files: the contents
  std::vector<std::string> entries;  // directories: entries in readdir order
};

// How the shim treats a path.
enum class PathClass : uint8_t {
  real,     // not ours: the C library handles it
  node,     // one of our virtual nodes
  hidden,   // a DRM path that is not ours: ENOENT
};

struct PathLookup {
  PathClass cls = PathClass::real;
  const VirtualNode* node = nullptr;  // for PathClass::node
  // For PathClass::real: the path to hand to the C library. Empty: the path
  // as given. Set when the path went through our nodes ("/dev/dri/.." is
  // "/dev"; "/sys/dev/char/226:128/subsystem" is "/sys/class/drm").
  std::string real_path;
  const char* real_or(const char* given) const { return real_path.empty() ? given : real_path.c_str(); }
};

// Resolves `path` as open/stat/... would: ".." and our symlinks are followed
// component by component (the last one only if `follow_last`). Only absolute
// paths can be virtual; relative ones are left to the C library.
PathLookup lookup_path(const char* path, bool follow_last = true);

// Lexical normalization: collapses "//", "/./" and "dir/..". "/a//b/../c" -> "/a/c".
std::string normalize_path(std::string_view path);

// The render node itself.
const VirtualNode& render_node();

// stat/lstat results for a node.
void fill_stat(const VirtualNode& node, struct stat* st);
void fill_statx(const VirtualNode& node, struct statx* stx);

// The d_type of a directory entry `name` of `dir`.
unsigned char entry_type(const VirtualNode& dir, std::string_view name);

// A stable fake inode number for a path.
uint64_t node_inode(const VirtualNode& node);

}  // namespace agx::shim
