// Cross-check with lavapipe (Debian's mesa-vulkan-drivers, Mesa's software
// Vulkan driver): the same RGBA8 image and sampler states are sampled with
// textureLod by a compute shader on lavapipe and by the texture unit; the
// results must agree (exactly for nearest filtering; within lavapipe's
// 8-bit filter arithmetic for linear filtering).
//
// Needs the Vulkan loader, lavapipe and glslangValidator (scripts/setup.sh
// installs them); without them the test fails naming what is missing.
#include <gtest/gtest.h>
#include <vulkan/vulkan.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <dlfcn.h>
#include <unistd.h>

#include "texture_helpers.h"

// Vulkan structs are filled field by field after naming their sType.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

// The Vulkan loader and lavapipe keep allocations until exit; they are not
// the unit's leaks (read by LeakSanitizer in the sanitizer build).
extern "C" const char* __lsan_default_suppressions() {
  return "leak:libvulkan\nleak:libvulkan_lvp\nleak:libLLVM\nleak:lvp_\nleak:libgallium\n";
}

namespace agx::gpu::test {
namespace AGX_UNITY_ID {

constexpr uint32_t kSide = 16, kLevels = 5, kCount = 512;

const char* kCubeShader = R"(#version 450
layout(local_size_x = 64) in;
layout(binding = 0) uniform samplerCube tex;
layout(std430, binding = 1) readonly buffer In { vec4 coords[]; };
layout(std430, binding = 2) writeonly buffer Out { vec4 results[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  results[i] = textureLod(tex, coords[i].xyz, coords[i].w);
}
)";

const char* kGatherShader = R"(#version 450
layout(local_size_x = 64) in;
layout(binding = 0) uniform sampler2D tex;
layout(std430, binding = 1) readonly buffer In { vec4 coords[]; };
layout(std430, binding = 2) writeonly buffer Out { vec4 results[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  results[i] = textureGather(tex, coords[i].xy, 1);
}
)";

const char* kShadowShader = R"(#version 450
layout(local_size_x = 64) in;
layout(binding = 0) uniform sampler2DShadow tex;
layout(std430, binding = 1) readonly buffer In { vec4 coords[]; };
layout(std430, binding = 2) writeonly buffer Out { vec4 results[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  results[i] = vec4(textureLod(tex, coords[i].xyz, coords[i].w));
}
)";

const char* kShader = R"(#version 450
layout(local_size_x = 64) in;
layout(binding = 0) uniform sampler2D tex;
layout(std430, binding = 1) readonly buffer In { vec4 coords[]; };
layout(std430, binding = 2) writeonly buffer Out { vec4 results[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  results[i] = textureLod(tex, coords[i].xy, coords[i].z);
}
)";

#define VK(expr)                                                   \
  do {                                                             \
    VkResult vk_r = (expr);                                        \
    if (vk_r != VK_SUCCESS) return fail(#expr, vk_r);              \
  } while (0)

struct SamplerCase {
  VkFilter filter;
  VkSamplerMipmapMode mip;
  VkSamplerAddressMode wrap;
  VkBorderColor border;
  Filter f;
  MipFilter m;
  Wrap w;
  BorderColour b;
};

// A lavapipe device with one image (kSide^2, kLevels levels) and helpers
// to sample it.
class Lavapipe {
 public:
  std::string error;
  VkPhysicalDeviceFeatures features{};
  bool compare_enable = false;
  VkCompareOp compare_op = VK_COMPARE_OP_NEVER;

  ~Lavapipe() {
    if (device_) vkDeviceWaitIdle(device_);
    for (auto s : samplers_) vkDestroySampler(device_, s, nullptr);
    if (view_) vkDestroyImageView(device_, view_, nullptr);
    if (image_) vkDestroyImage(device_, image_, nullptr);
    for (auto b : buffers_) vkDestroyBuffer(device_, b, nullptr);
    for (auto m : memories_) vkFreeMemory(device_, m, nullptr);
    if (pool_) vkDestroyCommandPool(device_, pool_, nullptr);
    if (dpool_) vkDestroyDescriptorPool(device_, dpool_, nullptr);
    if (pipeline_) vkDestroyPipeline(device_, pipeline_, nullptr);
    if (playout_) vkDestroyPipelineLayout(device_, playout_, nullptr);
    if (dlayout_) vkDestroyDescriptorSetLayout(device_, dlayout_, nullptr);
    if (module_) vkDestroyShaderModule(device_, module_, nullptr);
    if (device_) vkDestroyDevice(device_, nullptr);
    if (instance_) vkDestroyInstance(instance_, nullptr);
  }

  bool fail(const char* what, VkResult r) {
    error = std::string(what) + " failed: VkResult " + std::to_string(int(r));
    return false;
  }

  bool init(const std::vector<std::vector<uint8_t>>& levels,
            VkFormat format = VK_FORMAT_R8G8B8A8_UNORM, const char* shader = kShader,
            uint32_t layers = 1, bool cube = false, uint32_t side = kSide) {
    side_ = side;
    format_ = format;
    shader_ = shader;
    layers_ = layers;
    cube_ = cube;
    // Keep lavapipe mapped after the loader closes it, so LeakSanitizer can
    // name (and the suppressions above match) what it keeps until exit.
    static void* const keep_lavapipe = dlopen("libvulkan_lvp.so", RTLD_NOW | RTLD_NODELETE);
    (void)keep_lavapipe;
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.apiVersion = VK_API_VERSION_1_1;
    VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    ici.pApplicationInfo = &app;
    VK(vkCreateInstance(&ici, nullptr, &instance_));
    uint32_t n = 0;
    VK(vkEnumeratePhysicalDevices(instance_, &n, nullptr));
    std::vector<VkPhysicalDevice> devs(n);
    VK(vkEnumeratePhysicalDevices(instance_, &n, devs.data()));
    for (auto d : devs) {
      VkPhysicalDeviceProperties p;
      vkGetPhysicalDeviceProperties(d, &p);
      if (std::string(p.deviceName).find("llvmpipe") != std::string::npos) phys_ = d;
    }
    if (!phys_) {
      error = "no lavapipe (llvmpipe) Vulkan device: install mesa-vulkan-drivers";
      return false;
    }
    float prio = 1.0f;
    VkDeviceQueueCreateInfo q{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    q.queueFamilyIndex = 0;
    q.queueCount = 1;
    q.pQueuePriorities = &prio;
    VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    dci.queueCreateInfoCount = 1;
    dci.pQueueCreateInfos = &q;
    vkGetPhysicalDeviceFeatures(phys_, &features);
    VkPhysicalDeviceFeatures enable{};
    enable.textureCompressionBC = features.textureCompressionBC;
    enable.textureCompressionETC2 = features.textureCompressionETC2;
    dci.pEnabledFeatures = &enable;
    VK(vkCreateDevice(phys_, &dci, nullptr, &device_));
    vkGetDeviceQueue(device_, 0, 0, &queue_);
    VkCommandPoolCreateInfo cpi{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    VK(vkCreateCommandPool(device_, &cpi, nullptr, &pool_));
    return make_image(levels) && make_pipeline();
  }

  // Samples every (s, t, lod) of `coords` with the sampler case.
  bool sample(const SamplerCase& c, const std::vector<std::array<float, 4>>& coords,
              std::vector<std::array<float, 4>>& out) {
    VkSamplerCreateInfo sci{VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
    sci.magFilter = sci.minFilter = c.filter;
    sci.mipmapMode = c.mip;
    sci.addressModeU = sci.addressModeV = sci.addressModeW = c.wrap;
    sci.maxLod = c.m == MipFilter::none ? 0.25f : 1000.0f;  // Vulkan's way to say "no mipmapping"
    sci.borderColor = c.border;
    sci.compareEnable = compare_enable;
    sci.compareOp = compare_op;
    VkSampler sampler;
    VK(vkCreateSampler(device_, &sci, nullptr, &sampler));
    samplers_.push_back(sampler);
    const VkDeviceSize bytes = coords.size() * 16;
    VkBuffer in, res;
    void *in_map, *out_map;
    if (!make_buffer(bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, in, &in_map)) return false;
    if (!make_buffer(bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, res, &out_map)) return false;
    std::memcpy(in_map, coords.data(), bytes);
    VkDescriptorPoolSize sizes[] = {{VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1},
                                    {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2}};
    VkDescriptorPoolCreateInfo dpi{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    dpi.maxSets = 1;
    dpi.poolSizeCount = 2;
    dpi.pPoolSizes = sizes;
    if (dpool_) vkDestroyDescriptorPool(device_, dpool_, nullptr);
    VK(vkCreateDescriptorPool(device_, &dpi, nullptr, &dpool_));
    VkDescriptorSetAllocateInfo dai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    dai.descriptorPool = dpool_;
    dai.descriptorSetCount = 1;
    dai.pSetLayouts = &dlayout_;
    VkDescriptorSet set;
    VK(vkAllocateDescriptorSets(device_, &dai, &set));
    VkDescriptorImageInfo ii{sampler, view_, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
    VkDescriptorBufferInfo bi[2] = {{in, 0, bytes}, {res, 0, bytes}};
    VkWriteDescriptorSet w[3] = {};
    for (int k = 0; k < 3; ++k) {
      w[k].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
      w[k].dstSet = set;
      w[k].dstBinding = uint32_t(k);
      w[k].descriptorCount = 1;
      w[k].descriptorType = k == 0 ? VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER
                                   : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      if (k == 0) w[k].pImageInfo = &ii;
      else w[k].pBufferInfo = &bi[k - 1];
    }
    vkUpdateDescriptorSets(device_, 3, w, 0, nullptr);
    VkCommandBuffer cb;
    if (!begin(cb)) return false;
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_);
    vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, playout_, 0, 1, &set, 0, nullptr);
    vkCmdDispatch(cb, uint32_t(coords.size() / 64), 1, 1);
    if (!submit(cb)) return false;
    out.resize(coords.size());
    std::memcpy(out.data(), out_map, bytes);
    return true;
  }

 private:
  VkImageAspectFlags aspect() const {
    return format_ == VK_FORMAT_D32_SFLOAT || format_ == VK_FORMAT_D16_UNORM
               ? VK_IMAGE_ASPECT_DEPTH_BIT
               : VK_IMAGE_ASPECT_COLOR_BIT;
  }
  bool memory_type(uint32_t bits, VkMemoryPropertyFlags want, uint32_t& index) {
    VkPhysicalDeviceMemoryProperties mp;
    vkGetPhysicalDeviceMemoryProperties(phys_, &mp);
    for (uint32_t i = 0; i < mp.memoryTypeCount; ++i)
      if ((bits >> i & 1) && (mp.memoryTypes[i].propertyFlags & want) == want) {
        index = i;
        return true;
      }
    error = "no suitable memory type";
    return false;
  }

  bool make_buffer(VkDeviceSize size, VkBufferUsageFlags usage, VkBuffer& buf, void** map) {
    VkBufferCreateInfo bci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    bci.size = size;
    bci.usage = usage;
    VK(vkCreateBuffer(device_, &bci, nullptr, &buf));
    buffers_.push_back(buf);
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(device_, buf, &req);
    VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    mai.allocationSize = req.size;
    if (!memory_type(req.memoryTypeBits,
                     VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                     mai.memoryTypeIndex))
      return false;
    VkDeviceMemory mem;
    VK(vkAllocateMemory(device_, &mai, nullptr, &mem));
    memories_.push_back(mem);
    VK(vkBindBufferMemory(device_, buf, mem, 0));
    VK(vkMapMemory(device_, mem, 0, size, 0, map));
    return true;
  }

  bool begin(VkCommandBuffer& cb) {
    VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    ai.commandPool = pool_;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    VK(vkAllocateCommandBuffers(device_, &ai, &cb));
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    VK(vkBeginCommandBuffer(cb, &bi));
    return true;
  }
  bool submit(VkCommandBuffer cb) {
    VK(vkEndCommandBuffer(cb));
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cb;
    VK(vkQueueSubmit(queue_, 1, &si, VK_NULL_HANDLE));
    VK(vkQueueWaitIdle(queue_));
    return true;
  }

  bool make_image(const std::vector<std::vector<uint8_t>>& levels) {
    VkImageCreateInfo ic{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
    ic.imageType = VK_IMAGE_TYPE_2D;
    ic.format = format_;
    ic.extent = {side_, side_, 1};
    ic.mipLevels = uint32_t(levels.size());
    ic.arrayLayers = layers_;
    if (cube_) ic.flags = VK_IMAGE_CREATE_CUBE_COMPATIBLE_BIT;
    ic.samples = VK_SAMPLE_COUNT_1_BIT;
    ic.tiling = VK_IMAGE_TILING_OPTIMAL;
    ic.usage = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
    VK(vkCreateImage(device_, &ic, nullptr, &image_));
    VkMemoryRequirements req;
    vkGetImageMemoryRequirements(device_, image_, &req);
    VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    mai.allocationSize = req.size;
    if (!memory_type(req.memoryTypeBits, 0, mai.memoryTypeIndex)) return false;
    VkDeviceMemory mem;
    VK(vkAllocateMemory(device_, &mai, nullptr, &mem));
    memories_.push_back(mem);
    VK(vkBindImageMemory(device_, image_, mem, 0));
    size_t total = 0;
    for (const auto& l : levels) total += l.size();
    VkBuffer staging;
    void* map;
    if (!make_buffer(total, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, staging, &map)) return false;
    std::vector<VkBufferImageCopy> copies;
    size_t off = 0;
    for (uint32_t l = 0; l < levels.size(); ++l) {
      std::memcpy(static_cast<uint8_t*>(map) + off, levels[l].data(), levels[l].size());
      VkBufferImageCopy c{};
      c.bufferOffset = off;
      c.imageSubresource = {aspect(), l, 0, layers_};
      c.imageExtent = {side_ >> l, side_ >> l, 1};
      copies.push_back(c);
      off += levels[l].size();
    }
    VkCommandBuffer cb;
    if (!begin(cb)) return false;
    VkImageMemoryBarrier b{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
    b.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    b.newLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
    b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    b.image = image_;
    b.subresourceRange = {aspect(), 0, uint32_t(levels.size()), 0, layers_};
    b.dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0,
                         nullptr, 0, nullptr, 1, &b);
    vkCmdCopyBufferToImage(cb, staging, image_, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                           uint32_t(copies.size()), copies.data());
    b.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
    b.newLayout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
    b.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    b.dstAccessMask = VK_ACCESS_SHADER_READ_BIT;
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0,
                         0, nullptr, 0, nullptr, 1, &b);
    if (!submit(cb)) return false;
    VkImageViewCreateInfo vi{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
    vi.image = image_;
    vi.viewType = cube_ ? VK_IMAGE_VIEW_TYPE_CUBE : VK_IMAGE_VIEW_TYPE_2D;
    vi.format = format_;
    vi.subresourceRange = {aspect(), 0, uint32_t(levels.size()), 0, layers_};
    VK(vkCreateImageView(device_, &vi, nullptr, &view_));
    return true;
  }

  bool make_pipeline() {
    const std::string dir = testing::TempDir();
    // Per-process names: ctest runs the cross-checks in parallel.
    const std::string stem = dir + "agx_texture_xcheck_" + std::to_string(::getpid());
    const std::string src = stem + ".comp", spv = stem + ".spv";
    std::ofstream(src) << shader_;
    const std::string cmd = "glslangValidator -V -o " + spv + " " + src + " > /dev/null 2>&1";
    if (std::system(cmd.c_str()) != 0) {
      error = "glslangValidator could not compile the shader (install glslang-tools)";
      return false;
    }
    std::ifstream f(spv, std::ios::binary);
    std::vector<char> code((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    std::remove(src.c_str());
    std::remove(spv.c_str());
    VkShaderModuleCreateInfo smi{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    smi.codeSize = code.size();
    smi.pCode = reinterpret_cast<const uint32_t*>(code.data());
    VK(vkCreateShaderModule(device_, &smi, nullptr, &module_));
    VkDescriptorSetLayoutBinding bind[3] = {};
    for (uint32_t k = 0; k < 3; ++k) {
      bind[k].binding = k;
      bind[k].descriptorType = k == 0 ? VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER
                                      : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      bind[k].descriptorCount = 1;
      bind[k].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    }
    VkDescriptorSetLayoutCreateInfo dl{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    dl.bindingCount = 3;
    dl.pBindings = bind;
    VK(vkCreateDescriptorSetLayout(device_, &dl, nullptr, &dlayout_));
    VkPipelineLayoutCreateInfo pl{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    pl.setLayoutCount = 1;
    pl.pSetLayouts = &dlayout_;
    VK(vkCreatePipelineLayout(device_, &pl, nullptr, &playout_));
    VkComputePipelineCreateInfo cp{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    cp.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    cp.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    cp.stage.module = module_;
    cp.stage.pName = "main";
    cp.layout = playout_;
    VK(vkCreateComputePipelines(device_, VK_NULL_HANDLE, 1, &cp, nullptr, &pipeline_));
    return true;
  }

  VkFormat format_ = VK_FORMAT_R8G8B8A8_UNORM;
  const char* shader_ = kShader;
  uint32_t layers_ = 1;
  uint32_t side_ = kSide;
  bool cube_ = false;
  VkInstance instance_ = VK_NULL_HANDLE;
  VkPhysicalDevice phys_ = VK_NULL_HANDLE;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  VkDescriptorPool dpool_ = VK_NULL_HANDLE;
  VkImage image_ = VK_NULL_HANDLE;
  VkImageView view_ = VK_NULL_HANDLE;
  VkShaderModule module_ = VK_NULL_HANDLE;
  VkDescriptorSetLayout dlayout_ = VK_NULL_HANDLE;
  VkPipelineLayout playout_ = VK_NULL_HANDLE;
  VkPipeline pipeline_ = VK_NULL_HANDLE;
  std::vector<VkBuffer> buffers_;
  std::vector<VkDeviceMemory> memories_;
  std::vector<VkSampler> samplers_;
};

TEST(TextureLavapipe, SamplesAgreeWithLavapipe) {
  // The image: random RGBA8 texels on every level.
  std::mt19937 rng(7);
  std::vector<std::vector<uint8_t>> levels;
  for (uint32_t l = 0; l < kLevels; ++l) {
    std::vector<uint8_t> v((kSide >> l) * (kSide >> l) * 4);
    for (auto& b : v) b = uint8_t(rng());
    levels.push_back(v);
  }
  Lavapipe lvp;
  ASSERT_TRUE(lvp.init(levels)) << lvp.error;

  usc::RegionMemory mem;
  TestImage img = make_test_image(mem, 0x100000, format::Format::R8G8B8A8_UNORM,
                                  layout::Tiling::gpu, Dim::d2, kSide, kSide, 1, kLevels);
  TextureUnit unit(mem, {});
  for (uint32_t l = 0; l < kLevels; ++l)
    for (uint32_t y = 0; y < (kSide >> l); ++y)
      for (uint32_t x = 0; x < (kSide >> l); ++x) {
        PbeWrite w;
        for (int k = 0; k < 4; ++k)
          w.value[k] = f2u(float(levels[l][(y * (kSide >> l) + x) * 4 + k]) / 255.0f);
        w.x = int32_t(x);
        w.y = int32_t(y);
        img.pbe.level = l;
        ASSERT_TRUE(pbe_write(unit, img.pbe, w).ok());
      }

  // Coordinates: texel centres and random points in [-1.5, 2.5], LODs in
  // [-1, 5] at quarter steps (exact fractions), never a half: Vulkan rounds
  // a nearest mip level of x.5 down, lavapipe rounds it up.
  std::vector<std::array<float, 4>> coords(kCount);
  std::uniform_real_distribution<float> st(-1.5f, 2.5f);
  for (uint32_t i = 0; i < kCount; ++i) {
    int quarters = int(rng() % 25) - 4;
    if ((quarters & 3) == 2) ++quarters;
    const float lod = float(quarters) / 4.0f;
    if (i % 4 == 0)
      coords[i] = {(float(rng() % kSide) + 0.5f) / kSide, (float(rng() % kSide) + 0.5f) / kSide,
                   lod, 0};
    else
      // Off texel edges by 1/2048: at an exact edge of a mirrored repeat
      // Vulkan floors the coordinate before mirroring, lavapipe after.
      coords[i] = {std::round(st(rng) * 1024) / 1024 + 1.0f / 2048,
                   std::round(st(rng) * 1024) / 1024 + 1.0f / 2048, lod, 0};
  }

  const SamplerCase cases[] = {
      {VK_FILTER_NEAREST, VK_SAMPLER_MIPMAP_MODE_NEAREST, VK_SAMPLER_ADDRESS_MODE_REPEAT,
       VK_BORDER_COLOR_FLOAT_TRANSPARENT_BLACK, Filter::nearest, MipFilter::nearest, Wrap::repeat,
       BorderColour::transparent_black},
      {VK_FILTER_NEAREST, VK_SAMPLER_MIPMAP_MODE_NEAREST, VK_SAMPLER_ADDRESS_MODE_MIRRORED_REPEAT,
       VK_BORDER_COLOR_FLOAT_TRANSPARENT_BLACK, Filter::nearest, MipFilter::nearest,
       Wrap::mirrored_repeat, BorderColour::transparent_black},
      {VK_FILTER_NEAREST, VK_SAMPLER_MIPMAP_MODE_NEAREST, VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
       VK_BORDER_COLOR_FLOAT_TRANSPARENT_BLACK, Filter::nearest, MipFilter::nearest,
       Wrap::clamp_to_edge, BorderColour::transparent_black},
      {VK_FILTER_NEAREST, VK_SAMPLER_MIPMAP_MODE_NEAREST, VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER,
       VK_BORDER_COLOR_FLOAT_OPAQUE_WHITE, Filter::nearest, MipFilter::nearest,
       Wrap::clamp_to_border, BorderColour::opaque_white},
      {VK_FILTER_NEAREST, VK_SAMPLER_MIPMAP_MODE_NEAREST,
       VK_SAMPLER_ADDRESS_MODE_MIRROR_CLAMP_TO_EDGE, VK_BORDER_COLOR_FLOAT_TRANSPARENT_BLACK,
       Filter::nearest, MipFilter::nearest, Wrap::mirrored_clamp_to_edge,
       BorderColour::transparent_black},
      {VK_FILTER_LINEAR, VK_SAMPLER_MIPMAP_MODE_NEAREST, VK_SAMPLER_ADDRESS_MODE_REPEAT,
       VK_BORDER_COLOR_FLOAT_TRANSPARENT_BLACK, Filter::linear, MipFilter::nearest, Wrap::repeat,
       BorderColour::transparent_black},
      {VK_FILTER_LINEAR, VK_SAMPLER_MIPMAP_MODE_LINEAR, VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER,
       VK_BORDER_COLOR_FLOAT_OPAQUE_BLACK, Filter::linear, MipFilter::linear,
       Wrap::clamp_to_border, BorderColour::opaque_black},
      {VK_FILTER_LINEAR, VK_SAMPLER_MIPMAP_MODE_LINEAR, VK_SAMPLER_ADDRESS_MODE_MIRRORED_REPEAT,
       VK_BORDER_COLOR_FLOAT_TRANSPARENT_BLACK, Filter::linear, MipFilter::linear,
       Wrap::mirrored_repeat, BorderColour::transparent_black},
  };
  for (const SamplerCase& c : cases) {
    SCOPED_TRACE(testing::Message() << "filter " << int(c.f) << " mip " << int(c.m) << " wrap "
                                    << int(c.w));
    std::vector<std::array<float, 4>> want;
    ASSERT_TRUE(lvp.sample(c, coords, want)) << lvp.error;
    SamplerView s;
    s.magnify = s.minify = c.f;
    s.mip = c.m;
    s.wrap = {c.w, c.w, c.w};
    s.border = c.b;
    // Nearest filtering must agree exactly; linear within lavapipe's 8-bit
    // weights and 8-bit intermediate results (two units of 1/255).
    const float tol = c.f == Filter::nearest && c.m != MipFilter::linear ? 0.0f : 2.0f / 255.0f;
    unsigned bad = 0;
    for (uint32_t i = 0; i < kCount; ++i) {
      SampleRequest rq;
      rq.coord = {coords[i][0], coords[i][1], 0};
      rq.lod = coords[i][2];
      auto t = unit.sample(img.tex, s, rq);
      ASSERT_TRUE(t.ok()) << t.error().message();
      for (int k = 0; k < 4; ++k) {
        const float got = u2f(t->c[k]);
        if (std::fabs(got - want[i][k]) > tol + 1e-6f && bad++ < 5)
          ADD_FAILURE() << "coord (" << coords[i][0] << ", " << coords[i][1] << ") lod "
                        << coords[i][2] << " component " << k << ": unit " << got << " lavapipe "
                        << want[i][k];
      }
    }
    EXPECT_EQ(bad, 0u);
  }
}

TEST(TextureLavapipe, CubeMapsAgreeWithLavapipe) {
  constexpr uint32_t side = 8, levels_n = 4;
  std::mt19937 rng(3);
  std::vector<std::vector<uint8_t>> levels;
  for (uint32_t l = 0; l < levels_n; ++l) {
    std::vector<uint8_t> v(6 * (side >> l) * (side >> l) * 4);
    for (auto& b : v) b = uint8_t(rng());
    levels.push_back(v);
  }
  usc::RegionMemory mem;
  TestImage img = make_test_image(mem, 0x100000, format::Format::R8G8B8A8_UNORM,
                                  layout::Tiling::twiddled, Dim::cube, side, side, 1, levels_n);
  TextureUnit unit(mem, {});
  for (uint32_t l = 0; l < levels_n; ++l) {
    const uint32_t w = side >> l;
    for (uint32_t face = 0; face < 6; ++face)
      for (uint32_t y = 0; y < w; ++y)
        for (uint32_t x = 0; x < w; ++x) {
          PbeWrite wr;
          for (int k = 0; k < 4; ++k)
            wr.value[k] = f2u(float(levels[l][((face * w + y) * w + x) * 4 + k]) / 255.0f);
          wr.x = int32_t(x);
          wr.y = int32_t(y);
          wr.layer = face;
          img.pbe.level = l;
          ASSERT_TRUE(pbe_write(unit, img.pbe, wr).ok());
        }
  }
  Lavapipe lvp;
  ASSERT_TRUE(lvp.init(levels, VK_FORMAT_R8G8B8A8_UNORM, kCubeShader, 6, true, side)) << lvp.error;
  std::vector<std::array<float, 4>> coords(kCount);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  for (auto& c : coords) {
    int quarters = int(rng() % 17) - 2;
    if ((quarters & 3) == 2) ++quarters;
    c = {d(rng), d(rng), d(rng), float(quarters) / 4.0f};
  }
  for (VkFilter filter : {VK_FILTER_NEAREST, VK_FILTER_LINEAR}) {
    SCOPED_TRACE(filter == VK_FILTER_NEAREST ? "nearest" : "linear");
    SamplerCase c{filter, VK_SAMPLER_MIPMAP_MODE_NEAREST, VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
                  VK_BORDER_COLOR_FLOAT_TRANSPARENT_BLACK,
                  filter == VK_FILTER_NEAREST ? Filter::nearest : Filter::linear,
                  MipFilter::nearest, Wrap::clamp_to_edge, BorderColour::transparent_black};
    std::vector<std::array<float, 4>> want;
    ASSERT_TRUE(lvp.sample(c, coords, want)) << lvp.error;
    SamplerView s;
    s.magnify = s.minify = c.f;
    s.mip = MipFilter::nearest;
    const float tol = filter == VK_FILTER_NEAREST ? 0.0f : 2.0f / 255.0f;
    unsigned bad = 0;
    float worst = 0;
    for (uint32_t i = 0; i < kCount; ++i) {
      SampleRequest rq;
      rq.coord = {coords[i][0], coords[i][1], coords[i][2]};
      rq.lod = coords[i][3];
      auto t = unit.sample(img.tex, s, rq);
      ASSERT_TRUE(t.ok()) << t.error().message();
      for (int k = 0; k < 4; ++k) {
        const float diff = std::fabs(u2f(t->c[k]) - want[i][k]);
        worst = std::max(worst, diff);
        if (diff > tol + 1e-6f && bad++ < 5)
          ADD_FAILURE() << "dir (" << coords[i][0] << ", " << coords[i][1] << ", " << coords[i][2]
                        << ") lod " << coords[i][3] << " component " << k << ": unit "
                        << u2f(t->c[k]) << " lavapipe " << want[i][k];
      }
    }
    EXPECT_EQ(bad, 0u) << "largest difference " << worst;
  }
}

TEST(TextureLavapipe, GatherAgreesWithLavapipe) {
  std::mt19937 rng(5);
  std::vector<uint8_t> level(kSide * kSide * 4);
  for (auto& b : level) b = uint8_t(rng());
  usc::RegionMemory mem;
  TestImage img = make_test_image(mem, 0x100000, format::Format::R8G8B8A8_UNORM,
                                  layout::Tiling::gpu, Dim::d2, kSide, kSide, 1, 1);
  TextureUnit unit(mem, {});
  for (uint32_t y = 0; y < kSide; ++y)
    for (uint32_t x = 0; x < kSide; ++x) {
      PbeWrite wr;
      for (int k = 0; k < 4; ++k) wr.value[k] = f2u(float(level[(y * kSide + x) * 4 + k]) / 255.0f);
      wr.x = int32_t(x);
      wr.y = int32_t(y);
      ASSERT_TRUE(pbe_write(unit, img.pbe, wr).ok());
    }
  Lavapipe lvp;
  ASSERT_TRUE(lvp.init({level}, VK_FORMAT_R8G8B8A8_UNORM, kGatherShader)) << lvp.error;
  std::vector<std::array<float, 4>> coords(kCount);
  std::uniform_real_distribution<float> st(-1.5f, 2.5f);
  for (auto& c : coords)
    c = {std::round(st(rng) * 1024) / 1024 + 1.0f / 2048,
         std::round(st(rng) * 1024) / 1024 + 1.0f / 2048, 0, 0};
  for (auto [vk, w] : {std::pair{VK_SAMPLER_ADDRESS_MODE_REPEAT, Wrap::repeat},
                       {VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE, Wrap::clamp_to_edge},
                       {VK_SAMPLER_ADDRESS_MODE_MIRRORED_REPEAT, Wrap::mirrored_repeat}}) {
    SamplerCase c{VK_FILTER_LINEAR, VK_SAMPLER_MIPMAP_MODE_NEAREST, vk,
                  VK_BORDER_COLOR_FLOAT_TRANSPARENT_BLACK, Filter::linear, MipFilter::none, w,
                  BorderColour::transparent_black};
    std::vector<std::array<float, 4>> want;
    ASSERT_TRUE(lvp.sample(c, coords, want)) << lvp.error;
    SamplerView s;
    s.magnify = s.minify = Filter::linear;
    s.wrap = {w, w, w};
    unsigned bad = 0;
    for (uint32_t i = 0; i < kCount; ++i) {
      SampleRequest rq;
      rq.coord = {coords[i][0], coords[i][1], 0};
      rq.gather = 1;
      auto t = unit.sample(img.tex, s, rq);
      ASSERT_TRUE(t.ok()) << t.error().message();
      for (int k = 0; k < 4; ++k)
        // Exact texels; lavapipe's unorm8 conversion may differ in the last bit.
        if (std::fabs(u2f(t->c[k]) - want[i][k]) > 1e-6f && bad++ < 5)
          ADD_FAILURE() << "wrap " << int(w) << " coord (" << coords[i][0] << ", "
                        << coords[i][1] << ") texel " << k << ": unit " << u2f(t->c[k])
                        << " lavapipe " << want[i][k];
    }
    EXPECT_EQ(bad, 0u);
  }
}

// sRGB: decode to linear before filtering.
TEST(TextureLavapipe, SrgbAgreesWithLavapipe) {
  std::mt19937 rng(9);
  std::vector<uint8_t> level(kSide * kSide * 4);
  for (auto& b : level) b = uint8_t(rng());
  usc::RegionMemory mem;
  TestImage img = make_test_image(mem, 0x100000, format::Format::R8G8B8A8_SRGB,
                                  layout::Tiling::twiddled, Dim::d2, kSide, kSide, 1, 1);
  for (uint32_t y = 0; y < kSide; ++y)
    for (uint32_t x = 0; x < kSide; ++x) {
      auto a = layout::element_address_B(img.layout, x, y, 0, 0);
      ASSERT_TRUE(a.ok());
      GpuFault fault;
      ASSERT_TRUE(mem.write(0x100000 + *a, &level[(y * kSide + x) * 4], 4, GpuUnit::host, &fault));
    }
  TextureUnit unit(mem, {});
  Lavapipe lvp;
  ASSERT_TRUE(lvp.init({level}, VK_FORMAT_R8G8B8A8_SRGB)) << lvp.error;
  std::vector<std::array<float, 4>> coords(kCount);
  std::uniform_real_distribution<float> st(-0.25f, 1.25f);
  for (auto& c : coords)
    c = {std::round(st(rng) * 1024) / 1024 + 1.0f / 2048,
         std::round(st(rng) * 1024) / 1024 + 1.0f / 2048, 0, 0};
  for (VkFilter filter : {VK_FILTER_NEAREST, VK_FILTER_LINEAR}) {
    SamplerCase c{filter, VK_SAMPLER_MIPMAP_MODE_NEAREST, VK_SAMPLER_ADDRESS_MODE_REPEAT,
                  VK_BORDER_COLOR_FLOAT_TRANSPARENT_BLACK,
                  filter == VK_FILTER_NEAREST ? Filter::nearest : Filter::linear, MipFilter::none,
                  Wrap::repeat, BorderColour::transparent_black};
    std::vector<std::array<float, 4>> want;
    ASSERT_TRUE(lvp.sample(c, coords, want)) << lvp.error;
    SamplerView s;
    s.magnify = s.minify = c.f;
    s.wrap = {Wrap::repeat, Wrap::repeat, Wrap::repeat};
    // Lavapipe decodes sRGB with an approximation (up to 1.2e-3 off the
    // transfer function); the unit evaluates the function exactly.
    const float tol = filter == VK_FILTER_NEAREST ? 1.5e-3f : 2.0f / 255.0f;
    unsigned bad = 0;
    float worst = 0;
    for (uint32_t i = 0; i < kCount; ++i) {
      SampleRequest rq;
      rq.coord = {coords[i][0], coords[i][1], 0};
      auto t = unit.sample(img.tex, s, rq);
      ASSERT_TRUE(t.ok()) << t.error().message();
      for (int k = 0; k < 4; ++k) {
        const float d = std::fabs(u2f(t->c[k]) - want[i][k]);
        worst = std::max(worst, d);
        if (d > tol && bad++ < 5)
          ADD_FAILURE() << (filter == VK_FILTER_NEAREST ? "nearest" : "linear") << " coord ("
                        << coords[i][0] << ", " << coords[i][1] << ") component " << k
                        << ": unit " << u2f(t->c[k]) << " lavapipe " << want[i][k];
      }
    }
    EXPECT_EQ(bad, 0u) << "largest difference " << worst;
  }
}

// Depth comparison (shadow samplers), before filtering.
TEST(TextureLavapipe, DepthCompareAgreesWithLavapipe) {
  std::mt19937 rng(13);
  std::vector<float> depth(kSide * kSide);
  for (auto& d : depth) d = float(rng() % 1024) / 1023.0f;
  std::vector<uint8_t> level(depth.size() * 4);
  std::memcpy(level.data(), depth.data(), level.size());
  usc::RegionMemory mem;
  TestImage img = make_test_image(mem, 0x100000, format::Format::Z32_FLOAT, layout::Tiling::twiddled,
                                  Dim::d2, kSide, kSide, 1, 1);
  for (uint32_t y = 0; y < kSide; ++y)
    for (uint32_t x = 0; x < kSide; ++x) {
      auto a = layout::element_address_B(img.layout, x, y, 0, 0);
      ASSERT_TRUE(a.ok());
      GpuFault fault;
      ASSERT_TRUE(mem.write(0x100000 + *a, &depth[y * kSide + x], 4, GpuUnit::host, &fault));
    }
  TextureUnit unit(mem, {});
  Lavapipe lvp;
  ASSERT_TRUE(lvp.init({level}, VK_FORMAT_D32_SFLOAT, kShadowShader)) << lvp.error;
  std::vector<std::array<float, 4>> coords(kCount);
  std::uniform_real_distribution<float> st(0.0f, 1.0f);
  for (auto& c : coords)
    c = {std::round(st(rng) * 1024) / 1024 + 1.0f / 2048,
         std::round(st(rng) * 1024) / 1024 + 1.0f / 2048, float(rng() % 1024) / 1023.0f + 0.0004f, 0};
  const std::pair<VkCompareOp, CompareFunc> ops[] = {
      {VK_COMPARE_OP_LESS_OR_EQUAL, CompareFunc::lequal}, {VK_COMPARE_OP_GREATER, CompareFunc::greater},
      {VK_COMPARE_OP_LESS, CompareFunc::less}, {VK_COMPARE_OP_GREATER_OR_EQUAL, CompareFunc::gequal}};
  for (VkFilter filter : {VK_FILTER_NEAREST, VK_FILTER_LINEAR})
    for (auto [vk, op] : ops) {
      lvp.compare_enable = true;
      lvp.compare_op = vk;
      SamplerCase c{filter, VK_SAMPLER_MIPMAP_MODE_NEAREST, VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
                    VK_BORDER_COLOR_FLOAT_TRANSPARENT_BLACK,
                    filter == VK_FILTER_NEAREST ? Filter::nearest : Filter::linear,
                    MipFilter::none, Wrap::clamp_to_edge, BorderColour::transparent_black};
      std::vector<std::array<float, 4>> want;
      ASSERT_TRUE(lvp.sample(c, coords, want)) << lvp.error;
      SamplerView s;
      s.magnify = s.minify = c.f;
      s.compare_enable = true;
      s.compare_func = op;
      unsigned bad = 0;
      for (uint32_t i = 0; i < kCount; ++i) {
        SampleRequest rq;
        rq.coord = {coords[i][0], coords[i][1], 0};
        rq.compare = true;
        rq.reference = coords[i][2];
        auto t = unit.sample(img.tex, s, rq);
        ASSERT_TRUE(t.ok()) << t.error().message();
        const float got = u2f(t->c[0]);
        if (std::fabs(got - want[i][0]) > 2.0f / 255.0f && bad++ < 5)
          ADD_FAILURE() << "op " << int(op) << " filter " << int(filter) << " coord ("
                        << coords[i][0] << ", " << coords[i][1] << ") ref " << coords[i][2]
                        << ": unit " << got << " lavapipe " << want[i][0];
      }
      EXPECT_EQ(bad, 0u);
    }
}

// Block-compressed formats: random blocks decoded by lavapipe (nearest
// sampling at texel centres) and by texture_load.
struct BlockCase {
  VkFormat vk;
  const char* format;
  unsigned channels;  // compared channels
  float tol;          // allowed difference (interpolation rounding is not specified)
};

void check_blocks(const BlockCase& c, unsigned round = 0) {
  SCOPED_TRACE(std::string(c.format) + " round " + std::to_string(round));
  const format::FormatInfo& fi = format::info(*format::find_format(c.format));
  const uint32_t bw = fi.block_width_px, bh = fi.block_height_px, bb = fi.bytes_per_block_B;
  const uint32_t blocks = (kSide / bw) * (kSide / bh);
  std::mt19937 rng(11 + round);
  std::vector<uint8_t> data(blocks * bb);
  for (auto& b : data) b = uint8_t(rng());
  const bool bc6h = c.vk == VK_FORMAT_BC6H_UFLOAT_BLOCK || c.vk == VK_FORMAT_BC6H_SFLOAT_BLOCK;
  if (!bc6h && std::string(c.format).starts_with("BPTC"))  // every BC7 mode, twice
    for (uint32_t i = 0; i < blocks; ++i) {
      const unsigned mode = i % 8;
      data[i * bb] = uint8_t((data[i * bb] & ~((2u << mode) - 1)) | (1u << mode));
    }
  if (bc6h) {  // the 14 BC6H modes and the 4 reserved codes, in turn
    constexpr uint8_t kCodes[] = {0x00, 0x01, 0x02, 0x06, 0x0A, 0x0E, 0x12, 0x16, 0x1A,
                                  0x1E, 0x03, 0x07, 0x0B, 0x0F, 0x13, 0x17, 0x1B, 0x1F};
    for (uint32_t i = 0; i < blocks; ++i) {
      const uint8_t code = kCodes[(i + round * blocks) % std::size(kCodes)];
      const uint8_t bits = code < 2 ? 0x03 : 0x1F;
      data[i * bb] = uint8_t((data[i * bb] & ~bits) | code);
    }
  }
  Lavapipe lvp;
  ASSERT_TRUE(lvp.init({data}, c.vk)) << lvp.error;
  ASSERT_TRUE(lvp.features.textureCompressionBC) << "lavapipe without BC formats";
  usc::RegionMemory mem;
  TestImage img = make_test_image(mem, 0x100000, fi.format, layout::Tiling::twiddled, Dim::d2,
                                  kSide, kSide, 1, 1);
  for (uint32_t by = 0; by < kSide / bh; ++by)
    for (uint32_t bx = 0; bx < kSide / bw; ++bx) {
      auto a = layout::element_address_B(img.layout, bx * bw, by * bh, 0, 0);
      ASSERT_TRUE(a.ok());
      GpuFault fault;
      ASSERT_TRUE(mem.write(0x100000 + *a, data.data() + (by * (kSide / bw) + bx) * bb, bb,
                            GpuUnit::host, &fault));
    }
  TextureUnit unit(mem, {});
  std::vector<std::array<float, 4>> coords;
  for (uint32_t y = 0; y < kSide; ++y)
    for (uint32_t x = 0; x < kSide; ++x)
      coords.push_back({(x + 0.5f) / kSide, (y + 0.5f) / kSide, 0, 0});
  SamplerCase nearest{VK_FILTER_NEAREST, VK_SAMPLER_MIPMAP_MODE_NEAREST,
                      VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
                      VK_BORDER_COLOR_FLOAT_TRANSPARENT_BLACK, Filter::nearest, MipFilter::none,
                      Wrap::clamp_to_edge, BorderColour::transparent_black};
  std::vector<std::array<float, 4>> want;
  ASSERT_TRUE(lvp.sample(nearest, coords, want)) << lvp.error;
  unsigned bad = 0;
  float worst = 0;
  for (uint32_t i = 0; i < coords.size(); ++i) {
    FetchCoord at;
    at.x = int32_t(i % kSide);
    at.y = int32_t(i / kSide);
    auto t = unit.load(img.tex, SamplerView{}, at);
    ASSERT_TRUE(t.ok()) << t.error().message();
    for (unsigned k = 0; k < c.channels; ++k) {
      const float d = std::fabs(u2f(t->c[k]) - want[i][k]);
      worst = std::max(worst, d);
      if (d > c.tol + 1e-6f && bad++ < 5)
        ADD_FAILURE() << "texel (" << at.x << ", " << at.y << ") component " << k << ": unit "
                      << u2f(t->c[k]) << " lavapipe " << want[i][k];
    }
  }
  EXPECT_EQ(bad, 0u) << "largest difference " << worst;
}

TEST(TextureLavapipe, BlockCompressedFormatsAgreeWithLavapipe) {
  // Lavapipe (Mesa 22.3) offers BC only, not ETC2/EAC or ASTC. It rounds
  // interpolated RGTC values to 8 bits; the unit keeps them in float.
  const BlockCase cases[] = {
      {VK_FORMAT_BC1_RGBA_UNORM_BLOCK, "DXT1_RGBA", 4, 1.0f / 255},
      {VK_FORMAT_BC2_UNORM_BLOCK, "DXT3_RGBA", 4, 1.0f / 255},
      {VK_FORMAT_BC3_UNORM_BLOCK, "DXT5_RGBA", 4, 1.0f / 255},
      {VK_FORMAT_BC4_UNORM_BLOCK, "RGTC1_UNORM", 1, 1.5f / 255},
      {VK_FORMAT_BC4_SNORM_BLOCK, "RGTC1_SNORM", 1, 1.5f / 127},
      {VK_FORMAT_BC5_UNORM_BLOCK, "RGTC2_UNORM", 2, 1.5f / 255},
      {VK_FORMAT_BC5_SNORM_BLOCK, "RGTC2_SNORM", 2, 1.5f / 127},
      {VK_FORMAT_BC7_UNORM_BLOCK, "BPTC_RGBA_UNORM", 4, 0.0f},
      {VK_FORMAT_BC7_SRGB_BLOCK, "BPTC_SRGBA", 4, 1e-6f},
  };
  for (const BlockCase& c : cases) check_blocks(c);
}

TEST(TextureLavapipe, Bc6hAgreesWithLavapipe) {
  // Random blocks of every BC6H mode (and the reserved codes, which decode
  // to zero), unsigned and signed: the half-float results must be equal.
  for (unsigned round = 0; round < 9; ++round) {
    check_blocks({VK_FORMAT_BC6H_UFLOAT_BLOCK, "BPTC_RGB_UFLOAT", 3, 0.0f}, round);
    check_blocks({VK_FORMAT_BC6H_SFLOAT_BLOCK, "BPTC_RGB_FLOAT", 3, 0.0f}, round);
  }
}

}  // namespace
}  // namespace agx::gpu::test
