//! What the user asks of PC sampling (`ROCPROF_RS_PC_SAMPLING_*`, rocprofv3's
//! `--pc-sampling-method`, `--pc-sampling-unit` and `--pc-sampling-interval`).
//!
//! Parsing checks only the form. Whether an agent offers the method, the unit and the interval
//! is a question for the agents, asked when the backend starts: one that does not says what it
//! offers and is traced without samples.

use std::collections::BTreeMap;

use super::{PC_SAMPLING_INTERVAL, PC_SAMPLING_METHOD, PC_SAMPLING_UNIT, accepts, invalid};
use crate::error::Result;

/// How samples are taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PcMethod {
    /// A host thread interrupts the waves at an interval: where each wave is, no stall reason.
    HostTrap,
    /// The GPU's own sampling hardware: where each wave is, whether it issued, and why not.
    Stochastic,
}

impl PcMethod {
    /// The name rocprofv3 and the `method` column use.
    pub fn name(self) -> &'static str {
        match self {
            PcMethod::HostTrap => "host_trap",
            PcMethod::Stochastic => "stochastic",
        }
    }

    /// The unit the method counts its interval in when none is given: the one the SDK offers
    /// it in.
    pub fn default_unit(self) -> PcUnit {
        match self {
            PcMethod::HostTrap => PcUnit::Time,
            PcMethod::Stochastic => PcUnit::Cycles,
        }
    }
}

/// What the interval counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PcUnit {
    /// Microseconds.
    Time,
    Cycles,
    Instructions,
}

impl PcUnit {
    /// The name rocprofv3 uses.
    pub fn name(self) -> &'static str {
        match self {
            PcUnit::Time => "time",
            PcUnit::Cycles => "cycles",
            PcUnit::Instructions => "instructions",
        }
    }

    /// How an interval in this unit reads in a message: `1000 µs`, `4096 cycles`.
    pub fn label(self) -> &'static str {
        match self {
            PcUnit::Time => "µs",
            PcUnit::Cycles => "cycles",
            PcUnit::Instructions => "instructions",
        }
    }

    /// The interval when none is given: about a thousand samples a second per sampled unit
    /// (madengine's "PC sampling at 1000 Hz"), at a GPU clock of about 1 GHz for cycles.
    pub fn default_interval(self) -> u64 {
        match self {
            PcUnit::Time => 1000,
            PcUnit::Cycles | PcUnit::Instructions => 1 << 20,
        }
    }
}

/// A PC sampling request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PcSampling {
    pub method: PcMethod,
    pub unit: PcUnit,
    pub interval: u64,
    /// Whether the unit was given, or is the method's own: a unit the agent does not offer for
    /// the method is converted only where the user did not choose it.
    pub unit_given: bool,
}

/// The largest interval accepted: an hour in microseconds, 2^42 cycles.
const MAX_INTERVAL: u64 = 1 << 42;

impl PcSampling {
    /// The request in `env`, or `None` where no method is set. A unit or an interval without a
    /// method is refused rather than ignored: the user meant to sample.
    pub fn from_env(env: &BTreeMap<String, String>) -> Result<Option<PcSampling>> {
        let set = |name: &str| env.get(name).map(|v| v.trim()).filter(|v| !v.is_empty());
        let unit = match set(PC_SAMPLING_UNIT) {
            None => None,
            Some(text) => {
                Some(parse_unit(text).ok_or_else(|| invalid(PC_SAMPLING_UNIT, text, accepts(PC_SAMPLING_UNIT)))?)
            }
        };
        let interval = match set(PC_SAMPLING_INTERVAL) {
            None => None,
            Some(text) => Some(
                text.parse::<u64>()
                    .ok()
                    .filter(|v| (1..=MAX_INTERVAL).contains(v))
                    .ok_or_else(|| invalid(PC_SAMPLING_INTERVAL, text, accepts(PC_SAMPLING_INTERVAL)))?,
            ),
        };
        let Some(text) = set(PC_SAMPLING_METHOD) else {
            if let Some(orphan) = [PC_SAMPLING_UNIT, PC_SAMPLING_INTERVAL].into_iter().find(|v| set(v).is_some()) {
                let value = set(orphan).unwrap_or_default();
                return Err(invalid(
                    orphan,
                    value,
                    &format!("{} (and {PC_SAMPLING_METHOD} set, to say how to sample)", accepts(orphan)),
                ));
            }
            return Ok(None);
        };
        let method = match text.to_ascii_lowercase().as_str() {
            "off" | "none" | "0" => return Ok(None),
            "host_trap" | "host-trap" | "hosttrap" => PcMethod::HostTrap,
            "stochastic" => PcMethod::Stochastic,
            _ => return Err(invalid(PC_SAMPLING_METHOD, text, accepts(PC_SAMPLING_METHOD))),
        };
        let unit_given = unit.is_some();
        let unit = unit.unwrap_or(method.default_unit());
        Ok(Some(PcSampling { method, unit, interval: interval.unwrap_or(unit.default_interval()), unit_given }))
    }
}

fn parse_unit(text: &str) -> Option<PcUnit> {
    match text.to_ascii_lowercase().as_str() {
        "time" | "us" | "microseconds" => Some(PcUnit::Time),
        "cycles" => Some(PcUnit::Cycles),
        "instructions" => Some(PcUnit::Instructions),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(vars: &[(&str, &str)]) -> Result<Option<PcSampling>> {
        PcSampling::from_env(&vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect())
    }

    #[test]
    fn a_method_alone_takes_its_own_unit_and_interval() {
        let got = parse(&[(PC_SAMPLING_METHOD, "stochastic")]).unwrap().unwrap();
        assert_eq!(
            got,
            PcSampling { method: PcMethod::Stochastic, unit: PcUnit::Cycles, interval: 1 << 20, unit_given: false }
        );
        let got = parse(&[(PC_SAMPLING_METHOD, "host_trap"), (PC_SAMPLING_INTERVAL, "50")]).unwrap().unwrap();
        assert_eq!((got.unit, got.interval, got.unit_given), (PcUnit::Time, 50, false));
    }

    #[test]
    fn rocprofv3s_three_flags_are_taken_as_given() {
        let got =
            parse(&[(PC_SAMPLING_METHOD, "Stochastic"), (PC_SAMPLING_UNIT, "time"), (PC_SAMPLING_INTERVAL, "1000")])
                .unwrap()
                .unwrap();
        assert_eq!(
            got,
            PcSampling { method: PcMethod::Stochastic, unit: PcUnit::Time, interval: 1000, unit_given: true }
        );
        assert_eq!(parse(&[]).unwrap(), None);
        assert_eq!(parse(&[(PC_SAMPLING_METHOD, "off")]).unwrap(), None);
    }

    #[test]
    fn bad_values_name_their_variable() {
        for (vars, variable) in [
            (vec![(PC_SAMPLING_METHOD, "hosttrap2")], PC_SAMPLING_METHOD),
            (vec![(PC_SAMPLING_METHOD, "host_trap"), (PC_SAMPLING_UNIT, "seconds")], PC_SAMPLING_UNIT),
            (vec![(PC_SAMPLING_METHOD, "host_trap"), (PC_SAMPLING_INTERVAL, "0")], PC_SAMPLING_INTERVAL),
            (vec![(PC_SAMPLING_METHOD, "host_trap"), (PC_SAMPLING_INTERVAL, "-5")], PC_SAMPLING_INTERVAL),
            (
                vec![(PC_SAMPLING_METHOD, "host_trap"), (PC_SAMPLING_INTERVAL, "99999999999999999999")],
                PC_SAMPLING_INTERVAL,
            ),
            (vec![(PC_SAMPLING_INTERVAL, "100")], PC_SAMPLING_INTERVAL),
            (vec![(PC_SAMPLING_UNIT, "cycles")], PC_SAMPLING_UNIT),
        ] {
            let message = parse(&vars).unwrap_err().to_string();
            assert!(message.contains(variable), "{vars:?}: {message}");
        }
        let message = parse(&[(PC_SAMPLING_UNIT, "cycles")]).unwrap_err().to_string();
        assert!(message.contains(PC_SAMPLING_METHOD), "{message}");
    }
}
