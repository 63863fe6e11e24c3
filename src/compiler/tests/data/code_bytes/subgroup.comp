#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_KHR_shader_subgroup_shuffle_relative : require
#extension GL_KHR_shader_subgroup_arithmetic : require
// SIMD-group votes, ballots, shuffles and reductions.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer B { uint v[]; };
layout(set = 0, binding = 1) buffer F { float f[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  uint x = v[i];
  uvec4 bal = subgroupBallot(x > 5u);
  uint r = subgroupShuffle(x, 3u) + subgroupShuffleXor(x, 1u) + subgroupShuffleUp(x, 2u) + subgroupShuffleDown(x, 4u);
  r += subgroupAdd(x) + subgroupInclusiveMin(x) + subgroupExclusiveAdd(x) + subgroupBallotBitCount(bal);
  if (subgroupElect()) r += 1u;
  if (subgroupAll(x < 100u)) r += 2u;
  if (subgroupAny(x == 7u)) r ^= 3u;
  f[i] = subgroupMax(f[i]) + subgroupBroadcastFirst(f[i]);
  v[i] = r + subgroupBroadcast(x, 5u);
}
