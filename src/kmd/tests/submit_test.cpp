// Scheduling: per-queue order, in-syncs, queues independent, the firmware
// queue view of live submits, fault records, QUEUE_DESTROY of blocked work.
#include <algorithm>
#include <condition_variable>
#include <fstream>
#include <sstream>

#include "kmd/plan.h"
#include "kmd/tests/fixture.h"

namespace agx::kmd::test {
namespace AGX_UNITY_ID {

using Submit = KmdTest;

// Records the order in which firmware commands run.
struct Recorder : Executor {
  std::mutex mu;
  std::vector<std::string> log;
  bool execute(const FirmwareCommand& c, GpuFault*) override {
    std::lock_guard g(mu);
    log.push_back(fmt::format("q{} s{} {}{}{}", c.queue_id, c.submit_seqno, c.render ? 'R' : 'C', c.ordinal,
                              c.queue == FirmwareQueue::vertex ? "v" : c.queue == FirmwareQueue::fragment ? "f" : ""));
    return true;
  }
};

std::vector<uint8_t> one_compute() {
  std::vector<uint8_t> b;
  append(b, DRM_ASAHI_CMD_COMPUTE, drm_asahi_cmd_compute{});
  return b;
}

TEST_F(Submit, VertexHalfRunsAheadOfEarlierFragmentWork) {
  // R1's fragment half is held; R2 (no barrier) still runs its vertex half,
  // and R3 with vdm_barrier 1 (R1 complete) does not.
  struct HoldFragment : Recorder {
    std::mutex gm;
    std::condition_variable cv;
    bool open = false, vertex2_ran = false;
    bool execute(const FirmwareCommand& c, GpuFault* f) override {
      if (c.queue == FirmwareQueue::fragment && c.ordinal == 1) {
        std::unique_lock l(gm);
        cv.wait(l, [&] { return open; });
      }
      bool ok = Recorder::execute(c, f);  // logged before the test looks
      if (c.queue == FirmwareQueue::vertex && c.ordinal == 2) {
        std::lock_guard l(gm);
        vertex2_ran = true;
        cv.notify_all();
      }
      return ok;
    }
  };
  auto hold = std::make_shared<HoldFragment>();
  device.set_executor(hold);
  uint32_t v = vm(), q = queue(v), done = syncobj();
  std::vector<uint8_t> buf;
  append(buf, DRM_ASAHI_CMD_RENDER, valid_render());
  append(buf, DRM_ASAHI_CMD_RENDER, valid_render());
  append(buf, DRM_ASAHI_CMD_RENDER, valid_render(), 1, DRM_ASAHI_BARRIER_NONE);
  ASSERT_EQ(submit(q, buf, {}, {binary(done)}), 0);
  {
    std::unique_lock l(hold->gm);
    hold->cv.wait(l, [&] { return hold->vertex2_ran; });  // while R1f is held
  }
  {
    std::lock_guard g(hold->mu);
    for (const auto& e : hold->log) EXPECT_NE(e, "q1 s1 R3v");  // R3 waits for R1f
  }
  {
    std::lock_guard l(hold->gm);
    hold->open = true;
  }
  hold->cv.notify_all();
  ASSERT_EQ(wait(done), 0);
  std::lock_guard g(hold->mu);
  auto pos = [&](const char* s) { return std::find(hold->log.begin(), hold->log.end(), s) - hold->log.begin(); };
  EXPECT_LT(pos("q1 s1 R2v"), pos("q1 s1 R1f"));
  EXPECT_GT(pos("q1 s1 R3v"), pos("q1 s1 R1f"));
  EXPECT_EQ(hold->log.size(), 6u);
}

TEST_F(Submit, InSyncOrdersJobsAcrossQueues) {
  auto rec = std::make_shared<Recorder>();
  device.set_executor(rec);
  uint32_t v = vm(), q1 = queue(v), q2 = queue(v), first = syncobj(), second = syncobj();
  // Job on q1 then a job on q2 that waits on q1's out-sync: q2 runs second.
  ASSERT_EQ(submit(q1, one_compute(), {}, {binary(first)}), 0);
  ASSERT_EQ(submit(q2, one_compute(), {binary(first)}, {binary(second)}), 0);
  ASSERT_EQ(wait(second), 0);
  ASSERT_EQ(rec->log.size(), 2u);
  EXPECT_EQ(rec->log[0], "q1 s1 C1");
  EXPECT_EQ(rec->log[1], "q2 s2 C1");
}

TEST_F(Submit, JobsOfAQueueRunInOrder) {
  auto rec = std::make_shared<Recorder>();
  device.set_executor(rec);
  uint32_t v = vm(), q = queue(v), done = syncobj();
  for (int i = 0; i < 50; i++) ASSERT_EQ(submit(q, one_compute()), 0);
  // The render waits for all earlier compute work (cdm_barrier 0); without
  // it, its vertex half could run ahead of the compute queue.
  std::vector<uint8_t> render;
  append(render, DRM_ASAHI_CMD_RENDER, valid_render(), DRM_ASAHI_BARRIER_NONE, 0);
  ASSERT_EQ(submit(q, render, {}, {binary(done)}), 0);
  ASSERT_EQ(wait(done), 0);
  std::lock_guard g(rec->mu);
  ASSERT_EQ(rec->log.size(), 52u);
  for (int i = 0; i < 50; i++) EXPECT_EQ(rec->log[i], fmt::format("q1 s{} C1", i + 1));
  EXPECT_EQ(rec->log[50], "q1 s51 R1v");
  EXPECT_EQ(rec->log[51], "q1 s51 R1f");
}

// Holds every command of queue `gated` inside execute() until released, so
// its job's out-fence stays pending.
struct Gate : Recorder {
  uint32_t gated = 0;
  std::mutex gm;
  std::condition_variable cv;
  bool open = false;
  bool execute(const FirmwareCommand& c, GpuFault* f) override {
    if (c.queue_id == gated) {
      std::unique_lock l(gm);
      cv.wait(l, [&] { return open; });
    }
    return Recorder::execute(c, f);
  }
  void release() {
    { std::lock_guard l(gm); open = true; }
    cv.notify_all();
  }
};

TEST_F(Submit, BlockedJobBlocksItsQueueButNotOthers) {
  auto gate = std::make_shared<Gate>();
  device.set_executor(gate);
  uint32_t v = vm(), q1 = queue(v), q2 = queue(v), q3 = queue(v);
  gate->gated = q1;
  uint32_t s = syncobj(), b = syncobj(), c = syncobj(), d = syncobj();
  ASSERT_EQ(submit(q1, one_compute(), {}, {binary(s)}), 0);           // held by the gate
  ASSERT_EQ(submit(q2, one_compute(), {binary(s)}, {binary(b)}), 0);  // waits on s
  ASSERT_EQ(submit(q2, one_compute(), {}, {binary(c)}), 0);           // behind it
  ASSERT_EQ(submit(q3, one_compute(), {}, {binary(d)}), 0);           // independent
  EXPECT_EQ(wait(d), 0);
  EXPECT_EQ(wait(c, 0), -ETIME);  // blocked behind B (timeout in the past: a poll)
  EXPECT_EQ(wait(b, 0), -ETIME);
  gate->release();
  EXPECT_EQ(wait(c), 0);
  std::lock_guard g(gate->mu);
  ASSERT_EQ(gate->log.size(), 4u);
  EXPECT_EQ(gate->log[0], "q3 s4 C1");
  EXPECT_EQ(gate->log[1], "q1 s1 C1");
  EXPECT_EQ(gate->log[2], "q2 s2 C1");
  EXPECT_EQ(gate->log[3], "q2 s3 C1");
}

TEST_F(Submit, DestroyCancelsBlockedJobsAndSignalsTheirSyncs) {
  auto gate = std::make_shared<Gate>();
  device.set_executor(gate);
  uint32_t v = vm(), q1 = queue(v), q2 = queue(v);
  gate->gated = q1;
  uint32_t s = syncobj(), b = syncobj();
  ASSERT_EQ(submit(q1, one_compute(), {}, {binary(s)}), 0);
  ASSERT_EQ(submit(q2, one_compute(), {binary(s)}, {binary(b)}), 0);
  drm_asahi_queue_destroy d{q2, 0};
  EXPECT_EQ(io(DRM_IOCTL_ASAHI_QUEUE_DESTROY, d), 0);
  EXPECT_EQ(wait(b), 0);  // cancelled, not hung
  gate->release();
  EXPECT_EQ(wait(s), 0);
  std::lock_guard g(gate->mu);
  EXPECT_EQ(gate->log, (std::vector<std::string>{"q1 s1 C1"}));  // the cancelled job never ran
}

TEST_F(Submit, TimelinePointsChainJobs) {
  auto rec = std::make_shared<Recorder>();
  device.set_executor(rec);
  uint32_t v = vm(), q1 = queue(v), q2 = queue(v), tl = syncobj();
  ASSERT_EQ(submit(q1, one_compute(), {}, {point(tl, 1)}), 0);
  ASSERT_EQ(submit(q2, one_compute(), {point(tl, 1)}, {point(tl, 2)}), 0);
  EXPECT_EQ(wait_point(tl, 2), 0);
  uint64_t value = 0;
  drm_syncobj_timeline_array q{reinterpret_cast<uint64_t>(&tl), reinterpret_cast<uint64_t>(&value), 1, 0};
  ASSERT_EQ(io(DRM_IOCTL_SYNCOBJ_QUERY, q), 0);
  EXPECT_EQ(value, 2u);
  std::lock_guard g(rec->mu);
  EXPECT_EQ(rec->log, (std::vector<std::string>{"q1 s1 C1", "q2 s2 C1"}));
}

TEST_F(Submit, LiveViewMatchesTheSeedTable) {
  std::ifstream f("tests/data/seed_example.plan");
  std::stringstream text;
  text << f.rdbuf();
  auto plan = parse_plan(text.str());
  ASSERT_TRUE(plan);
  auto events = run_plan_live(device, *plan);
  ASSERT_TRUE(events) << events.error().message();
  for (const auto& e : *events) EXPECT_LE(e.start_ns, e.end_ns);
  EXPECT_EQ(format_table(view_of(*events)), format_table(firmware_view(*plan)));
  // Real times respect the barriers too: R2's vertex half after C2 and R1.
  auto find = [&](const char* t) {
    for (auto& e : *events)
      if (e.text == t) return e;
    return FirmwareEvent{};
  };
  EXPECT_GE(find("RUN R2v").start_ns, find("RUN C2").end_ns);
  EXPECT_GE(find("RUN R2v").start_ns, find("RUN R1f").end_ns);
}

TEST_F(Submit, ShortPayloadIsZeroExtended) {
  struct Check : Executor {
    drm_asahi_cmd_compute seen{};
    std::vector<drm_asahi_attachment> att;
    bool execute(const FirmwareCommand& c, GpuFault*) override {
      seen = *c.compute;
      att.assign(c.attachments.begin(), c.attachments.end());
      return true;
    }
  };
  auto check = std::make_shared<Check>();
  device.set_executor(check);
  uint32_t v = vm(), q = queue(v), done = syncobj();
  drm_asahi_cmd_compute c{};
  c.sampler_count = 7;
  c.cdm_ctrl_stream_base = 0x1234;  // past the 8 bytes sent: must arrive as 0
  std::vector<uint8_t> buf;
  drm_asahi_attachment a{0x10000, 0x4000, 0, 0};
  append(buf, DRM_ASAHI_SET_COMPUTE_ATTACHMENTS, a);
  append(buf, DRM_ASAHI_CMD_COMPUTE, c, DRM_ASAHI_BARRIER_NONE, DRM_ASAHI_BARRIER_NONE, 8);
  ASSERT_EQ(submit(q, buf, {}, {binary(done)}), 0);
  ASSERT_EQ(wait(done), 0);
  EXPECT_EQ(check->seen.sampler_count, 7u);
  EXPECT_EQ(check->seen.cdm_ctrl_stream_base, 0u);
  ASSERT_EQ(check->att.size(), 1u);
  EXPECT_EQ(check->att[0].pointer, 0x10000u);
}

TEST_F(Submit, FaultIsRecordedAndJobCompletes) {
  struct Faulty : Executor {
    bool execute(const FirmwareCommand& c, GpuFault* f) override {
      uint32_t x;
      return c.memory->read(0xdead0000, &x, 4, GpuUnit::cdm, f);
    }
  };
  device.set_executor(std::make_shared<Faulty>());
  uint32_t v = vm(), q = queue(v), done = syncobj();
  ASSERT_EQ(submit(q, one_compute(), {}, {binary(done)}), 0);
  ASSERT_EQ(wait(done), 0);
  auto faults = device.faults();
  ASSERT_EQ(faults.size(), 1u);
  EXPECT_EQ(faults[0].fault.va, 0xdead0000u);
  EXPECT_EQ(faults[0].fault.unit, GpuUnit::cdm);
  EXPECT_EQ(faults[0].fault.reason, "unmapped");
}

TEST_F(Submit, FileCloseWithQueuedWorkDoesNotHang) {
  uint32_t v = vm(), q = queue(v);
  for (int i = 0; i < 100; i++) ASSERT_EQ(submit(q, one_compute()), 0);
  file.reset();  // joins the queue thread after running the ready jobs
  SUCCEED();
}

}  // namespace
}  // namespace agx::kmd::test
