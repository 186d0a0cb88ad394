//! What CUPTI can do of a PC sampling request: it samples by hardware only, every `2^k` SM
//! cycles for k in 5..=31. rocprofv3's `stochastic` method is that. `host_trap` has no CUPTI
//! counterpart: it is sampled by hardware too, so rocprofv3's and madengine's command lines
//! still give samples, and an interval in time is taken at a nominal SM clock. An interval
//! that is not a power of two is sampled at the nearest one. Each change is said in one line.

use crate::config::pc_sampling::{PcMethod, PcSampling, PcUnit};
use rocprofiler_sdk_sys::cupti as sys;

/// What CUPTI offers, as the line that refuses a request names it.
pub const OFFERED: &str = "hardware sampling in cycles or time, every 2^5 to 2^31 cycles";

/// The SM clock an interval in time is converted at: about what data-centre GPUs run at
/// (an H100 and H200 boost to 1.98 GHz, an A100 to 1.41): the power of two it is fitted
/// to next is a factor of two apart in any case.
pub const NOMINAL_MHZ: u64 = 1500;

/// The sampling CUPTI is asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Period {
    /// CUPTI's `samplingPeriod`: samples every `2^exponent` cycles.
    pub exponent: u32,
    /// What was changed to fit, for one line; empty where nothing was.
    pub changes: Vec<&'static str>,
}

impl Period {
    /// The cycles between two samples.
    pub fn cycles(&self) -> u64 {
        1u64 << self.exponent
    }
}

/// Why a request cannot be sampled by CUPTI.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refused {
    #[error("CUPTI does not sample by {unit}; it offers {OFFERED}")]
    Unit { unit: &'static str },
}

/// The period for `request`, or why there is none.
pub fn period(request: &PcSampling) -> Result<Period, Refused> {
    let mut changes = Vec::new();
    if request.method == PcMethod::HostTrap {
        changes.push("CUPTI has no host_trap method, so its hardware samples instead");
    }
    let cycles = match request.unit {
        PcUnit::Cycles => request.interval,
        PcUnit::Time => {
            changes.push("an interval in time is taken at a nominal 1.5 GHz SM clock");
            request.interval.saturating_mul(NOMINAL_MHZ)
        }
        PcUnit::Instructions => return Err(Refused::Unit { unit: request.unit.name() }),
    };
    let exponent = nearest_exponent(cycles);
    if 1u64 << exponent != cycles {
        changes.push("CUPTI samples at a power of two of cycles");
    }
    Ok(Period { exponent, changes })
}

/// The exponent of the power of two nearest `interval` (in log scale), within CUPTI's range.
fn nearest_exponent(interval: u64) -> u32 {
    let interval = interval.max(1);
    let below = 63 - interval.leading_zeros();
    // Nearer the upper power when interval > 2^below * sqrt(2), i.e. interval^2 > 2^(2*below+1).
    let up = u128::from(interval) * u128::from(interval) > 1u128 << (2 * below + 1);
    (below + u32::from(up)).clamp(sys::CUPTI_PC_SAMPLING_PERIOD_MIN, sys::CUPTI_PC_SAMPLING_PERIOD_MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(method: PcMethod, unit: PcUnit, interval: u64) -> PcSampling {
        PcSampling { method, unit, interval, unit_given: true }
    }

    #[test]
    fn a_power_of_two_of_cycles_is_taken_as_is() {
        let p = period(&request(PcMethod::Stochastic, PcUnit::Cycles, 2048)).unwrap();
        assert_eq!((p.exponent, p.cycles()), (11, 2048));
        assert!(p.changes.is_empty());
    }

    #[test]
    fn other_intervals_go_to_the_nearest_power_within_range() {
        let exponent = |n| period(&request(PcMethod::Stochastic, PcUnit::Cycles, n)).unwrap().exponent;
        assert_eq!(exponent(3000), 12);
        assert_eq!(exponent(2800), 11);
        assert_eq!(exponent(1), 5);
        assert_eq!(exponent(1 << 40), 31);
        assert_eq!(period(&request(PcMethod::Stochastic, PcUnit::Cycles, 3000)).unwrap().changes.len(), 1);
    }

    #[test]
    fn host_trap_in_time_is_sampled_by_hardware_at_the_nominal_clock_and_says_so() {
        // madengine's profile: host_trap every 1000 µs, about 1.5M cycles, nearest 2^21.
        let p = period(&request(PcMethod::HostTrap, PcUnit::Time, 1000)).unwrap();
        assert_eq!(p.exponent, 21);
        assert_eq!(p.changes.len(), 3, "{:?}", p.changes);
    }

    #[test]
    fn instructions_are_refused_naming_what_cupti_offers() {
        let refused = period(&request(PcMethod::Stochastic, PcUnit::Instructions, 1 << 20)).unwrap_err();
        assert!(refused.to_string().contains("2^31 cycles"), "{refused}");
    }
}
