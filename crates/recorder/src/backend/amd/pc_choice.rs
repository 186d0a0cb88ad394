//! Which of an agent's PC sampling configurations serves a request: the SDK refuses any
//! method, unit or interval the agent does not offer, so the tool picks from the agent's
//! answer to `rocprofiler_query_pc_sampling_agent_configurations` and says, in one line, what
//! it changed or why the agent goes unsampled.

use crate::config::pc_sampling::{PcMethod, PcSampling, PcUnit};

/// One configuration an agent offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Offer {
    pub method: PcMethod,
    pub unit: PcUnit,
    pub min_interval: u64,
    pub max_interval: u64,
    /// The interval must be a power of two.
    pub pow2: bool,
}

/// What to configure on one agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Choice {
    /// Sample so; `note` says what differs from the request, and why.
    Sample { method: PcMethod, unit: PcUnit, interval: u64, note: Option<String> },
    /// Do not sample this agent: the line says what it offers.
    Refuse(String),
}

/// The configuration of `offers` that serves `request` on an agent clocked at `clock_mhz`
/// (its largest engine clock, by which a time interval becomes cycles).
pub fn choose(request: &PcSampling, offers: &[Offer], clock_mhz: u32) -> Choice {
    let of_method: Vec<&Offer> = offers.iter().filter(|o| o.method == request.method).collect();
    if of_method.is_empty() {
        return Choice::Refuse(format!("it offers no {} sampling ({})", request.method.name(), describe(offers)));
    }
    if let Some(offer) = of_method.iter().find(|o| o.unit == request.unit) {
        return fit(offer, request.interval, None);
    }
    let offer = of_method[0];
    // A unit the user did not choose is only the method's default: the agent's own unit, at
    // its own default interval, is what was meant.
    if !request.unit_given {
        return fit(offer, offer.unit.default_interval(), None);
    }
    match (request.unit, offer.unit) {
        (PcUnit::Time, PcUnit::Cycles) if clock_mhz > 0 => {
            let cycles = request.interval.saturating_mul(u64::from(clock_mhz));
            let why = format!(
                "{} sampling counts cycles here: {} µs at {clock_mhz} MHz is {cycles} cycles",
                request.method.name(),
                request.interval
            );
            fit(offer, cycles, Some(why))
        }
        (PcUnit::Cycles, PcUnit::Time) if clock_mhz > 0 => {
            let micros = (request.interval / u64::from(clock_mhz)).max(1);
            let why = format!(
                "{} sampling counts time here: {} cycles at {clock_mhz} MHz is {micros} µs",
                request.method.name(),
                request.interval
            );
            fit(offer, micros, Some(why))
        }
        _ => Choice::Refuse(format!(
            "it offers {} sampling in {} only, not {} ({})",
            request.method.name(),
            offer.unit.name(),
            request.unit.name(),
            describe(offers)
        )),
    }
}

/// `interval` made one `offer` accepts: within its bounds, and a power of two where it asks.
fn fit(offer: &Offer, interval: u64, why: Option<String>) -> Choice {
    let mut notes: Vec<String> = why.into_iter().collect();
    let mut fitted = interval.clamp(offer.min_interval.max(1), offer.max_interval.max(offer.min_interval).max(1));
    if fitted != interval {
        notes.push(format!(
            "the interval {interval} is outside the agent's {}-{} {}",
            offer.min_interval,
            offer.max_interval,
            offer.unit.label()
        ));
    }
    if offer.pow2 && !fitted.is_power_of_two() {
        let up = fitted.checked_next_power_of_two().unwrap_or(1 << 63);
        let down = up >> 1;
        let within = |v: u64| (offer.min_interval..=offer.max_interval).contains(&v);
        let nearest = match (within(down), within(up)) {
            (true, true) if fitted.saturating_sub(down) <= up.saturating_sub(fitted) => down,
            (true, true) | (false, true) => up,
            _ => down,
        };
        notes.push(format!("the interval must be a power of two here: {fitted} became {nearest}"));
        fitted = nearest;
    }
    let note =
        (!notes.is_empty()).then(|| format!("{}; sampling every {fitted} {}", notes.join("; "), offer.unit.name()));
    Choice::Sample { method: offer.method, unit: offer.unit, interval: fitted, note }
}

/// What an agent offers, for a line that refuses it: `host_trap (time, 1-1000000)`.
pub fn describe(offers: &[Offer]) -> String {
    if offers.is_empty() {
        return "it offers no PC sampling".into();
    }
    let each: Vec<String> = offers
        .iter()
        .map(|o| {
            let pow2 = if o.pow2 { ", powers of two" } else { "" };
            format!("{} ({}, {}-{}{pow2})", o.method.name(), o.unit.name(), o.min_interval, o.max_interval)
        })
        .collect();
    format!("offers {}", each.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOST_TRAP: Offer =
        Offer { method: PcMethod::HostTrap, unit: PcUnit::Time, min_interval: 1, max_interval: 1_000_000, pow2: false };
    const STOCHASTIC: Offer = Offer {
        method: PcMethod::Stochastic,
        unit: PcUnit::Cycles,
        min_interval: 256,
        max_interval: 1 << 30,
        pow2: true,
    };

    fn request(method: PcMethod, unit: Option<PcUnit>, interval: u64) -> PcSampling {
        PcSampling { method, unit: unit.unwrap_or(method.default_unit()), interval, unit_given: unit.is_some() }
    }

    #[test]
    fn an_offered_configuration_is_taken_as_asked() {
        let got = choose(&request(PcMethod::HostTrap, Some(PcUnit::Time), 1000), &[HOST_TRAP, STOCHASTIC], 2100);
        assert_eq!(got, Choice::Sample { method: PcMethod::HostTrap, unit: PcUnit::Time, interval: 1000, note: None });
        let got = choose(&request(PcMethod::Stochastic, None, 1 << 20), &[HOST_TRAP, STOCHASTIC], 2100);
        assert_eq!(
            got,
            Choice::Sample { method: PcMethod::Stochastic, unit: PcUnit::Cycles, interval: 1 << 20, note: None }
        );
    }

    #[test]
    fn madengines_stochastic_in_time_becomes_cycles_at_the_agents_clock() {
        // 1000 µs at 2100 MHz is 2.1M cycles, whose nearest power of two is 2^21.
        let Choice::Sample { unit, interval, note: Some(note), .. } =
            choose(&request(PcMethod::Stochastic, Some(PcUnit::Time), 1000), &[HOST_TRAP, STOCHASTIC], 2100)
        else {
            panic!("not sampled")
        };
        assert_eq!((unit, interval), (PcUnit::Cycles, 1 << 21));
        assert!(note.contains("2100000 cycles") && note.contains("power of two"), "{note}");
    }

    #[test]
    fn an_agent_without_the_method_is_refused_naming_what_it_offers() {
        let Choice::Refuse(line) = choose(&request(PcMethod::Stochastic, None, 1 << 20), &[HOST_TRAP], 1700) else {
            panic!("sampled")
        };
        assert!(line.contains("no stochastic") && line.contains("host_trap (time, 1-1000000)"), "{line}");
        let Choice::Refuse(line) = choose(&request(PcMethod::HostTrap, None, 10), &[], 1700) else { panic!("sampled") };
        assert!(line.contains("no PC sampling"), "{line}");
    }

    #[test]
    fn intervals_are_fitted_and_said_so() {
        let Choice::Sample { interval, note: Some(note), .. } =
            choose(&request(PcMethod::Stochastic, None, 1000), &[STOCHASTIC], 0)
        else {
            panic!("not sampled")
        };
        assert_eq!(interval, 1024);
        assert!(note.contains("1000 became 1024"), "{note}");
        let Choice::Sample { interval, note: Some(note), .. } =
            choose(&request(PcMethod::HostTrap, None, 5_000_000), &[HOST_TRAP], 0)
        else {
            panic!("not sampled")
        };
        assert_eq!(interval, 1_000_000);
        assert!(note.contains("outside"), "{note}");
        // Below the minimum, a power of two is taken upwards, never under the minimum.
        let Choice::Sample { interval, .. } = choose(&request(PcMethod::Stochastic, None, 3), &[STOCHASTIC], 0) else {
            panic!("not sampled")
        };
        assert_eq!(interval, 256);
    }

    #[test]
    fn whatever_an_agent_answers_the_choice_is_made_without_a_panic() {
        let request = request(PcMethod::Stochastic, Some(PcUnit::Time), 1 << 42);
        for (min, max) in [(0, 0), (5, 1), (u64::MAX, u64::MAX), (0, u64::MAX), (3, 3), (1 << 63, u64::MAX)] {
            let offer = Offer { min_interval: min, max_interval: max, ..STOCHASTIC };
            let _ = choose(&request, &[offer], u32::MAX);
        }
        let Choice::Sample { interval, .. } = choose(&request, &[STOCHASTIC], u32::MAX) else { panic!("refused") };
        assert_eq!(interval, 1 << 30, "a conversion past the range is the range's end");
    }

    #[test]
    fn a_unit_without_a_clock_to_convert_by_is_refused() {
        let Choice::Refuse(line) = choose(&request(PcMethod::Stochastic, Some(PcUnit::Time), 1000), &[STOCHASTIC], 0)
        else {
            panic!("sampled")
        };
        assert!(line.contains("cycles only, not time"), "{line}");
    }
}
