//! From a request to per-agent groups of counters that each fit one hardware pass.
//!
//! Both steps are pure: [`choose`] decides, for every agent, which of the requested names it
//! collects, and says what is wrong or missing; [`pack`] splits one agent's names into groups,
//! asking a `fits` function (in the tool, `rocprofiler_create_counter_config`) whether a set
//! fits. A derived counter is configured by its own id, so the SDK places every input of its
//! expression in the same pass: the inputs can never be split apart.

use super::selection::Selection;
use super::suggest::suggestions;
use crate::error::{Error, Result};

/// What an agent offers, as far as choosing is concerned.
#[derive(Debug, Clone)]
pub struct Offer<'a> {
    /// How messages name the agent, e.g. `GPU 0 (gfx942)`.
    pub label: String,
    /// The counter names it supports, or why it has none.
    pub counters: std::result::Result<Vec<&'a str>, NoCounters>,
}

/// Why an agent has no counters.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NoCounters {
    /// The SDK refused the query: its status, without the `ROCPROFILER_STATUS_ERROR_` prefix
    /// (`AGENT_ARCH_NOT_SUPPORTED` on GPUs the SDK has no counter definitions for).
    #[error("{0}")]
    Refused(String),
    /// The SDK answered with an empty list.
    #[error("the SDK lists no counters")]
    NoneListed,
    /// A CPU: counters are the GPUs'.
    #[error("a CPU")]
    Cpu,
    /// Only the agents were asked for (`avail`'s agent list, the tool's agent table).
    #[error("not asked")]
    NotAsked,
    /// A counter's description could not be read.
    #[error("{0}")]
    Unreadable(String),
}

/// The passes each agent takes, as names: `passes[i]` is a list of groups for agent `i`, each a
/// list of names that should go together (an input file's line), to be packed further.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Choice {
    pub passes: Vec<Vec<Vec<String>>>,
    /// One line per thing the user should know: agents without counters, counters some agents
    /// lack, preset entries an architecture has no counter for.
    pub notes: Vec<String>,
}

/// Chooses each agent's counters for `selection`. Names no agent knows are an error with
/// suggestions; names only some agents have are collected there, and the others are named.
pub fn choose(selection: &Selection, offers: &[Offer<'_>]) -> Result<Choice> {
    let mut choice = Choice::default();
    let with_counters: Vec<(usize, &Vec<&str>)> =
        offers.iter().enumerate().filter_map(|(i, o)| o.counters.as_ref().ok().map(|c| (i, c))).collect();
    let without: Vec<String> =
        offers.iter().filter_map(|o| o.counters.as_ref().err().map(|why| format!("{} ({why})", o.label))).collect();
    if !without.is_empty() {
        choice.notes.push(format!(
            "no hardware counters on {}: {} traced for timing only",
            without.join(", "),
            if without.len() == 1 { "it is" } else { "they are" }
        ));
    }
    let requested: Vec<Vec<String>> = match selection {
        Selection::Names(names) => vec![names.clone()],
        Selection::Passes(passes) => passes.clone(),
        Selection::Preset(_) => Vec::new(),
    };
    if !with_counters.is_empty() {
        let mut unknown = Vec::new();
        for name in requested.iter().flatten() {
            if !with_counters.iter().any(|(_, c)| c.contains(&name.as_str())) && !unknown.contains(&name) {
                unknown.push(name);
            }
        }
        if !unknown.is_empty() {
            let known = || with_counters.iter().flat_map(|(_, c)| c.iter().copied());
            let mut all: Vec<&str> = known().collect();
            all.sort_unstable();
            all.dedup();
            let lines: Vec<String> = unknown
                .iter()
                .map(|name| match suggestions(name, all.iter().copied()).as_slice() {
                    [] => format!("unknown counter {name}"),
                    close => format!("unknown counter {name} (did you mean {}?)", close.join(", ")),
                })
                .collect();
            return Err(Error::Counters(format!(
                "{}; `rocprof-rs avail` lists each agent's counters",
                lines.join("; ")
            )));
        }
    }
    for (i, offer) in offers.iter().enumerate() {
        let Ok(has) = &offer.counters else {
            choice.passes.push(Vec::new());
            continue;
        };
        let passes: Vec<Vec<String>> = match selection {
            Selection::Preset(preset) => {
                let resolved = preset.resolve(|n| has.contains(&n));
                if !resolved.complete() {
                    choice.notes.push(format!(
                        "preset {} on {}: no counter for {}; collecting the other {}",
                        preset.name,
                        offer.label,
                        resolved.missing.join(", "),
                        resolved.counters.len()
                    ));
                }
                vec![resolved.counters]
            }
            _ => requested
                .iter()
                .map(|pass| pass.iter().filter(|n| has.contains(&n.as_str())).cloned().collect())
                .collect(),
        };
        for name in requested.iter().flatten() {
            if !has.contains(&name.as_str()) {
                let elsewhere: Vec<&str> = with_counters
                    .iter()
                    .filter(|(j, c)| *j != i && c.contains(&name.as_str()))
                    .map(|(j, _)| offers[*j].label.as_str())
                    .collect();
                choice.notes.push(format!(
                    "{} has no counter {name} (it is on {}): not collected there",
                    offer.label,
                    elsewhere.join(", ")
                ));
            }
        }
        choice.passes.push(passes.into_iter().filter(|p| !p.is_empty()).collect());
    }
    Ok(choice)
}

/// Why a set of counters could not be configured.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// More than one hardware pass (`EXCEEDS_HW_LIMIT`): split and try again.
    TooLarge,
    /// Anything else, which splitting cannot mend.
    Other(String),
}

/// A group of counters that fits one pass, with the handle `fits` returned for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group<C> {
    pub counters: Vec<C>,
    pub config: u64,
}

/// Packs each of `passes` into as few groups as fit, first fit in order: a counter joins the
/// first group of its pass that still has room. `fits` creates a config for a set or refuses
/// it; `release` is told of configs superseded by a larger one.
pub fn pack<C: Clone + std::fmt::Display>(
    passes: &[Vec<C>],
    mut fits: impl FnMut(&[C]) -> std::result::Result<u64, Refusal>,
    mut release: impl FnMut(u64),
) -> Result<Vec<Group<C>>> {
    let mut all: Vec<Group<C>> = Vec::new();
    for pass in passes {
        let mut groups: Vec<Group<C>> = Vec::new();
        'counter: for counter in pass {
            for group in &mut groups {
                let mut larger = group.counters.clone();
                larger.push(counter.clone());
                match fits(&larger) {
                    Ok(config) => {
                        release(group.config);
                        *group = Group { counters: larger, config };
                        continue 'counter;
                    }
                    Err(Refusal::TooLarge) => {}
                    Err(Refusal::Other(why)) => return Err(Error::Counters(format!("counter {counter}: {why}"))),
                }
            }
            match fits(std::slice::from_ref(counter)) {
                Ok(config) => groups.push(Group { counters: vec![counter.clone()], config }),
                Err(Refusal::TooLarge) => {
                    return Err(Error::Counters(format!(
                        "counter {counter} needs more than one hardware pass by itself"
                    )));
                }
                Err(Refusal::Other(why)) => return Err(Error::Counters(format!("counter {counter}: {why}"))),
            }
        }
        all.extend(groups);
    }
    Ok(all)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::counters::presets;

    fn offer<'a>(label: &str, names: &[&'a str]) -> Offer<'a> {
        Offer { label: label.into(), counters: Ok(names.to_vec()) }
    }

    fn names(list: &[&str]) -> Selection {
        Selection::Names(list.iter().map(|s| (*s).to_owned()).collect())
    }

    #[test]
    fn unknown_names_are_an_error_with_suggestions() {
        let offers = [offer("GPU 0 (gfx942)", &["SQ_WAVES", "SQ_INSTS_VALU"])];
        let e = choose(&names(&["SQ_WAVSE", "SQ_INSTS_VALU", "NOPE_AT_ALL"]), &offers).unwrap_err().to_string();
        assert_eq!(
            e,
            "unknown counter SQ_WAVSE (did you mean SQ_WAVES?); unknown counter NOPE_AT_ALL; `rocprof-rs avail` lists each agent's counters"
        );
    }

    #[test]
    fn a_counter_some_agents_lack_is_collected_where_it_exists() {
        let offers = [
            offer("GPU 0 (gfx942)", &["SQ_WAVES"]),
            offer("GPU 1 (gfx90a)", &["SQ_WAVES", "SQ_WAIT_INST_VALU"]),
            Offer {
                label: "GPU 2 (gfx1151)".into(),
                counters: Err(NoCounters::Refused("AGENT_ARCH_NOT_SUPPORTED".into())),
            },
        ];
        let choice = choose(&names(&["SQ_WAVES", "SQ_WAIT_INST_VALU"]), &offers).unwrap();
        assert_eq!(choice.passes[0], [vec!["SQ_WAVES"]]);
        assert_eq!(choice.passes[1], [vec!["SQ_WAVES", "SQ_WAIT_INST_VALU"]]);
        assert!(choice.passes[2].is_empty());
        assert_eq!(
            choice.notes,
            [
                "no hardware counters on GPU 2 (gfx1151) (AGENT_ARCH_NOT_SUPPORTED): it is traced for timing only",
                "GPU 0 (gfx942) has no counter SQ_WAIT_INST_VALU (it is on GPU 1 (gfx90a)): not collected there",
            ]
        );
    }

    #[test]
    fn a_machine_without_counters_gets_one_note_and_no_error() {
        let offers =
            [Offer { label: "GPU 0 (gfx1151)".into(), counters: Err(NoCounters::Refused("no counters".into())) }];
        let choice = choose(&names(&["SQ_WAVES"]), &offers).unwrap();
        assert_eq!(choice.notes.len(), 1);
        assert!(choice.passes[0].is_empty());
    }

    #[test]
    fn presets_resolve_per_agent_and_say_what_they_miss() {
        let offers = [offer("GPU 0 (gfx942)", &["SQ_WAVES", "SQ_INSTS_VALU", "SQ_INSTS_SALU"])];
        let choice = choose(&Selection::Preset(presets::by_name("basic").unwrap()), &offers).unwrap();
        assert_eq!(choice.passes[0], [vec!["SQ_WAVES", "SQ_INSTS_VALU", "SQ_INSTS_SALU"]]);
        assert!(choice.notes[0].starts_with("preset basic on GPU 0 (gfx942): no counter for SQ_INSTS_LDS"));
    }

    /// A pretend SDK: a set fits when it has at most `limit` counters; handles count from 1.
    fn sdk(limit: usize) -> impl FnMut(&[&str]) -> std::result::Result<u64, Refusal> {
        let mut handles = 0;
        move |set: &[&str]| {
            if set.contains(&"BROKEN") {
                return Err(Refusal::Other("INVALID_ARGUMENT".into()));
            }
            if set.len() > limit {
                return Err(Refusal::TooLarge);
            }
            handles += 1;
            Ok(handles)
        }
    }

    #[test]
    fn packing_fills_groups_first_fit_and_releases_superseded_configs() {
        let fits = sdk(3);
        let mut released = Vec::new();
        let groups = pack(&[vec!["A", "B", "C", "D", "E"]], fits, |c| released.push(c)).unwrap();
        let sets: Vec<Vec<&str>> = groups.iter().map(|g| g.counters.clone()).collect();
        assert_eq!(sets, [vec!["A", "B", "C"], vec!["D", "E"]]);
        assert_eq!(groups.iter().map(|g| g.config).collect::<Vec<_>>(), [3, 5]);
        assert_eq!(released, [1, 2, 4]);
    }

    #[test]
    fn input_file_lines_stay_apart() {
        let fits = sdk(8);
        let groups = pack(&[vec!["A"], vec!["B", "C"]], fits, |_| {}).unwrap();
        assert_eq!(groups.len(), 2);
        assert_eq!(groups[1].counters, ["B", "C"]);
    }

    #[test]
    fn what_splitting_cannot_mend_is_an_error() {
        let fits = sdk(0);
        let e = pack(&[vec!["A"]], fits, |_| {}).unwrap_err().to_string();
        assert_eq!(e, "counter A needs more than one hardware pass by itself");
        let fits = sdk(4);
        let e = pack(&[vec!["A", "BROKEN"]], fits, |_| {}).unwrap_err().to_string();
        assert_eq!(e, "counter BROKEN: INVALID_ARGUMENT");
    }
}
