// Transports: the in-process kmd device, or a DRM render node.
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "kmd/kmd.h"
#include "runtime/runtime.h"

namespace agx::runtime {

namespace {

class InProcess : public Transport {
 public:
  explicit InProcess(kmd::Device& device) : device_(&device), file_(kmd::open_file(device)) {}
  explicit InProcess(std::unique_ptr<kmd::Device> owned)
      : owned_(std::move(owned)), device_(owned_.get()), file_(kmd::open_file(*owned_)) {}
  int ioctl(unsigned long request, void* arg) override { return file_->ioctl(request, arg); }
  void* mmap(uint64_t offset, size_t length, int* err) override { return file_->mmap(offset, length, err); }
  int munmap(void* addr, size_t length) override { return file_->munmap(addr, length); }
  std::string name() const override { return "in-process device"; }
  kmd::Device* in_process_device() override { return device_; }

 private:
  std::unique_ptr<kmd::Device> owned_;  // destroyed after file_
  kmd::Device* device_;
  std::unique_ptr<kmd::File> file_;
};

class RenderNode : public Transport {
 public:
  RenderNode(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  ~RenderNode() override { close(fd_); }
  int ioctl(unsigned long request, void* arg) override {
    int rc;
    do {
      rc = ::ioctl(fd_, request, arg);
    } while (rc < 0 && (errno == EINTR || errno == EAGAIN));
    return rc < 0 ? -errno : 0;
  }
  void* mmap(uint64_t offset, size_t length, int* err) override {
    void* p = ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, off_t(offset));
    if (p == MAP_FAILED) {
      *err = -errno;
      return nullptr;
    }
    *err = 0;
    return p;
  }
  int munmap(void* addr, size_t length) override { return ::munmap(addr, length) < 0 ? -errno : 0; }
  std::string name() const override { return path_; }

 private:
  int fd_;
  std::string path_;
};

}  // namespace

std::unique_ptr<Transport> in_process_transport() {
  return std::make_unique<InProcess>(std::make_unique<kmd::Device>());
}

std::unique_ptr<Transport> in_process_transport(kmd::Device& device) {
  return std::make_unique<InProcess>(device);
}

Result<std::unique_ptr<Transport>> render_node_transport(const std::string& path) {
  int fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return Error::io("{}: {}", path, std::strerror(errno));
  return std::unique_ptr<Transport>(std::make_unique<RenderNode>(fd, path));
}

}  // namespace agx::runtime
