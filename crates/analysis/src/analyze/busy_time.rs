//! A dispatch's GPU time from its busy cycles, where its rows have no timestamps: a
//! rocprof-compute workload whose times a spreadsheet rounded away, or ROCm 6.2's counters.
//!
//! `GRBM_GUI_ACTIVE` counts the cycles the graphics block was busy with the dispatch, summed
//! over the device's XCDs on CDNA3 and later (rocprof-compute divides it by `num_xcd` for its
//! `GRBM_GUI_ACTIVE_PER_XCD`). Over the engine clock it gives a time that includes the
//! dispatch's launch and drain, so it is at least the kernel's own: a rate computed from it is
//! a lower bound, and the output says which time it used.

use super::dataset::AgentRow;
use super::roofline;
use super::specs::Device;

/// A time estimated from busy cycles, and how.
#[derive(Debug, Clone)]
pub struct BusyTime {
    /// Per counted dispatch, ns.
    pub mean_ns: f64,
    /// What it was computed from, for the output.
    pub how: String,
}

/// The mean dispatch time `GRBM_GUI_ACTIVE` gives, if the counters have it and the agent or
/// the device database gives a clock.
pub fn estimate(counters: &dyn roofline::Counters, agent: &AgentRow, device: Option<&Device<'_>>) -> Option<BusyTime> {
    let cycles = roofline::any(counters, &["GRBM_GUI_ACTIVE"]).filter(|&c| c > 0.0)?;
    let (clock, clock_from) = match agent.agent.max_clock_mhz {
        Some(mhz) => (f64::from(mhz), "the agent's maximum engine clock"),
        None => (device?.gpu.value("peak_engine_clock_mhz")?, "the part's peak engine clock"),
    };
    let xcds = match agent.xcc {
        0 => device.and_then(|d| d.gpu.value("xcd_count")).unwrap_or(1.0),
        n => f64::from(n),
    };
    let mean_ns = cycles / xcds / clock * 1e3;
    let how = format!(
        "its rows have no timestamps: GPU time from GRBM_GUI_ACTIVE, {cycles:.0} busy cycles per dispatch over \
         {xcds:.0} XCD{} at {clock:.0} MHz ({clock_from}) = {:.1} µs; it includes launch and drain, so rates \
         from it are lower bounds",
        if xcds == 1.0 { "" } else { "s" },
        mean_ns / 1e3
    );
    Some(BusyTime { mean_ns, how })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::specs::Agent;
    use std::collections::BTreeMap;

    fn agent(clock: Option<u32>, xcc: u32) -> AgentRow {
        AgentRow {
            agent: Agent { target: "gfx942".into(), max_clock_mhz: clock, ..Agent::default() },
            wave_size: 64,
            gpu: true,
            xcc,
        }
    }

    #[test]
    fn busy_cycles_over_the_xcds_and_the_clock() {
        // rocprof-compute's MI300X vcopy, dispatch 1 of the rocpd-backed workload.
        let counters: BTreeMap<String, f64> = [("GRBM_GUI_ACTIVE".to_owned(), 272_355.0)].into();
        let t = estimate(&counters, &agent(Some(2100), 8), None).unwrap();
        assert!((t.mean_ns - 272_355.0 / 8.0 / 2100.0 * 1e3).abs() < 1e-6);
        assert!(t.how.contains("8 XCDs at 2100 MHz") && t.how.contains("16.2 µs"), "{}", t.how);
    }

    #[test]
    fn nothing_without_the_counter_or_a_clock() {
        let none: BTreeMap<String, f64> = BTreeMap::new();
        assert!(estimate(&none, &agent(Some(2100), 8), None).is_none());
        let counters: BTreeMap<String, f64> = [("GRBM_GUI_ACTIVE".to_owned(), 1000.0)].into();
        assert!(estimate(&counters, &agent(None, 1), None).is_none());
    }
}
