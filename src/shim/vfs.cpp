// The virtual /dev and /sys entries of the render node (see vfs.h).
#include "shim/vfs.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/sysmacros.h>

#include <cstring>
#include <deque>

#include <fmt/format.h>

namespace agx::shim {
namespace {

constexpr const char* kSocDir = "/sys/devices/platform/soc";
constexpr const char* kDeviceDir = "/sys/devices/platform/soc/206400000.gpu";
constexpr const char* kClassDir = "/sys/class/drm";

std::vector<VirtualNode> build_tree() {
  const std::string render_name = fmt::format("renderD{}", kRenderMinor);
  const std::string gpu = kDeviceDir;
  const std::string minor = gpu + "/drm/" + render_name;
  // What the kernel's drm_minor uevent holds; libdrm reads DEVNAME from it
  // in drmGetDeviceNameFromFd2.
  const std::string minor_uevent = fmt::format(
      "MAJOR={}\nMINOR={}\nDEVNAME=dri/{}\nDEVTYPE=drm_minor\n", kDrmMajor, kRenderMinor, render_name);
  // The platform device's uevent: libdrm's drmParseOFBusInfo reads
  // OF_FULLNAME, drmParseOFDeviceInfo OF_COMPATIBLE_N and OF_COMPATIBLE_<i>.
  const std::string device_uevent =
      "DRIVER=asahi\nOF_NAME=gpu\nOF_FULLNAME=/soc/gpu@206400000\n"
      "OF_COMPATIBLE_0=apple,agx-g13g\nOF_COMPATIBLE_N=1\n"
      "MODALIAS=of:NgpuT(null)Capple,agx-g13g\n";
  using K = NodeKind;
  return {
      {"/dev/dri", K::directory, "", "", {render_name}},
      {kRenderNodePath, K::render_node, "", "", {}},
      {fmt::format("/sys/dev/char/{}:{}", kDrmMajor, kRenderMinor), K::symlink,
       "../../devices/platform/soc/206400000.gpu/drm/" + render_name, "", {}},
      {kClassDir, K::directory, "", "", {render_name}},
      {std::string(kClassDir) + "/" + render_name, K::symlink,
       "../../devices/platform/soc/206400000.gpu/drm/" + render_name, "", {}},
      {kSocDir, K::directory, "", "", {"206400000.gpu"}},
      {gpu, K::directory, "", "", {"driver", "drm", "subsystem", "uevent"}},
      {gpu + "/uevent", K::file, "", device_uevent, {}},
      // drmParseSubsystemType matches the link's last component: "/platform".
      {gpu + "/subsystem", K::symlink, "../../../../bus/platform", "", {}},
      {gpu + "/driver", K::symlink, "../../../../bus/platform/drivers/asahi", "", {}},
      // drmNodeIsDRM stats this directory; drmGetMinorNameForFD lists it.
      {gpu + "/drm", K::directory, "", "", {render_name}},
      {minor, K::directory, "", "", {"dev", "device", "subsystem", "uevent"}},
      {minor + "/dev", K::file, "", fmt::format("{}:{}\n", kDrmMajor, kRenderMinor), {}},
      {minor + "/uevent", K::file, "", minor_uevent, {}},
      {minor + "/device", K::symlink, "../../../206400000.gpu", "", {}},
      {minor + "/subsystem", K::symlink, "../../../../../../class/drm", "", {}},
  };
}

const std::vector<VirtualNode>& tree() {
  static const std::vector<VirtualNode> nodes = build_tree();
  return nodes;
}

const VirtualNode* find_node(std::string_view path) {
  for (const VirtualNode& node : tree())
    if (node.path == path) return &node;
  return nullptr;
}

bool has_prefix(std::string_view path, std::string_view prefix) {
  return path.size() >= prefix.size() && path.substr(0, prefix.size()) == prefix;
}

// Below a directory we own, or another DRM minor: what is not a node is not there.
bool is_hidden(std::string_view path) {
  static const std::string prefixes[] = {"/dev/dri/", fmt::format("/sys/dev/char/{}:", kDrmMajor),
                                         std::string(kSocDir) + "/", std::string(kClassDir) + "/"};
  for (const std::string& prefix : prefixes)
    if (has_prefix(path, prefix)) return true;
  return false;
}

void split_into(std::string_view path, std::deque<std::string>* out, bool front) {
  std::vector<std::string> parts;
  size_t i = 0;
  while (i <= path.size()) {
    size_t j = path.find('/', i);
    if (j == std::string_view::npos) j = path.size();
    if (j > i) parts.emplace_back(path.substr(i, j - i));
    i = j + 1;
  }
  if (front)
    out->insert(out->begin(), parts.begin(), parts.end());
  else
    out->insert(out->end(), parts.begin(), parts.end());
}

void drop_last(std::string* path) {
  const size_t slash = path->rfind('/');
  path->resize(slash == std::string::npos ? 0 : slash);
}

}  // namespace

std::string normalize_path(std::string_view path) {
  std::deque<std::string> parts;
  split_into(path, &parts, false);
  std::string out;
  for (const std::string& part : parts) {
    if (part == "..")
      drop_last(&out);
    else if (part != ".")
      out += "/" + part;
  }
  return out.empty() ? "/" : out;
}

PathLookup lookup_path(const char* path, bool follow_last) {
  // The fast exit: every virtual or hidden path names /dev or /sys.
  if (!path || path[0] != '/' || (!std::strstr(path, "dev") && !std::strstr(path, "sys"))) return {};
  std::deque<std::string> todo;
  split_into(path, &todo, false);
  // "dir/" names the directory a symlink points to: follow the last link too.
  if (path[std::strlen(path) - 1] == '/') follow_last = true;
  std::string cur;          // resolved so far, no trailing slash ("" is "/")
  bool touched = false;     // went through one of our nodes
  int links = 0;
  while (!todo.empty()) {
    std::string part = std::move(todo.front());
    todo.pop_front();
    if (part == ".") continue;
    if (part == "..") {
      drop_last(&cur);
      continue;
    }
    cur += "/" + part;
    const VirtualNode* node = find_node(cur);
    if (!node) continue;
    touched = true;
    if (node->kind != NodeKind::symlink || (todo.empty() && !follow_last)) continue;
    if (++links > 40) return {PathClass::hidden, nullptr, {}};  // ELOOP, as ENOENT
    drop_last(&cur);  // a relative target starts from the link's directory
    if (node->link_target[0] == '/') cur.clear();
    split_into(node->link_target, &todo, true);
  }
  if (cur.empty()) cur = "/";
  if (const VirtualNode* node = find_node(cur)) return {PathClass::node, node, {}};
  if (is_hidden(cur)) return {PathClass::hidden, nullptr, {}};
  return {PathClass::real, nullptr, touched ? cur : std::string()};
}

const VirtualNode& render_node() { return tree()[1]; }  // the second row of build_tree

uint64_t node_inode(const VirtualNode& node) {
  // FNV-1a of the path: stable across runs, distinct for our few nodes.
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : node.path) h = (h ^ c) * 0x100000001b3ull;
  return h | 1;
}

namespace {

mode_t node_mode(const VirtualNode& node) {
  switch (node.kind) {
    case NodeKind::directory: return S_IFDIR | 0755;
    case NodeKind::symlink: return S_IFLNK | 0777;
    case NodeKind::render_node: return S_IFCHR | 0666;
    case NodeKind::file: break;
  }
  return S_IFREG | 0444;
}

uint64_t node_size(const VirtualNode& node) {
  if (node.kind == NodeKind::symlink) return node.link_target.size();
  return node.kind == NodeKind::file ? node.content.size() : 0;
}

}  // namespace

void fill_stat(const VirtualNode& node, struct stat* st) {
  std::memset(st, 0, sizeof(*st));
  st->st_dev = makedev(0, 5);
  st->st_ino = node_inode(node);
  st->st_mode = node_mode(node);
  st->st_nlink = S_ISDIR(st->st_mode) ? 2 : 1;
  st->st_rdev = node.kind == NodeKind::render_node ? makedev(kDrmMajor, kRenderMinor) : 0;
  st->st_size = static_cast<off_t>(node_size(node));
  st->st_blksize = 4096;
}

void fill_statx(const VirtualNode& node, struct statx* stx) {
  std::memset(stx, 0, sizeof(*stx));
  stx->stx_mask = STATX_BASIC_STATS;
  stx->stx_blksize = 4096;
  stx->stx_ino = node_inode(node);
  stx->stx_mode = static_cast<uint16_t>(node_mode(node));
  stx->stx_nlink = S_ISDIR(stx->stx_mode) ? 2 : 1;
  stx->stx_size = node_size(node);
  stx->stx_dev_minor = 5;
  if (node.kind == NodeKind::render_node) {
    stx->stx_rdev_major = kDrmMajor;
    stx->stx_rdev_minor = kRenderMinor;
  }
}

unsigned char entry_type(const VirtualNode& dir, std::string_view name) {
  const VirtualNode* node = find_node(dir.path + "/" + std::string(name));
  if (!node) return DT_UNKNOWN;
  switch (node->kind) {
    case NodeKind::directory: return DT_DIR;
    case NodeKind::symlink: return DT_LNK;
    case NodeKind::render_node: return DT_CHR;
    case NodeKind::file: break;
  }
  return DT_REG;
}

}  // namespace agx::shim
