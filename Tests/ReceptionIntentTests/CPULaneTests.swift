import Testing
import ReceptionTestSupport

/// The CPU-bound suites of this target run on `CPULane`, off the cooperative pool the network
/// tests wait on; these check that the trait really moves a test there, synchronous or async.
@Suite("CPU lane", .onTheCPULane)
struct CPULaneTests {
    @Test func aSynchronousTestRunsOnTheLane() {
        #expect(CPULane.isCurrent)
    }

    @Test func anAsyncTestRunsOnTheLaneAndComesBackToItAfterASuspension() async {
        #expect(CPULane.isCurrent)
        await Task.yield()
        #expect(CPULane.isCurrent)
    }
}

@Suite("Off the CPU lane")
struct OffTheCPULaneTests {
    @Test func aTestWithoutTheTraitRunsOnThePool() {
        #expect(!CPULane.isCurrent)
    }
}
