//! PC sampling on every GPU agent that offers what was asked: each agent is asked what it
//! offers, [`pc_choice::choose`] picks, and the service is configured into a buffer of its own
//! (samples come in bursts the size of a kernel's waves, and must not crowd out the trace).
//! An agent that cannot sample is named on one line with what it offers; tracing goes on.

use rocprofiler_sdk_sys as sys;
use sys::sdk::SdkApi;

use super::catalog::AgentInfo;
use super::pc_choice::{self, Choice, Offer};
use super::sdk::handles::{AgentId, BufferId, ContextId};
use super::sdk::pc_sampling as calls;
use crate::config::pc_sampling::{PcMethod, PcSampling, PcUnit};
use crate::error::{Error, Status};

/// Configures sampling on each GPU of `agents`; returns how many sample.
pub fn configure(
    api: &SdkApi,
    context: ContextId,
    buffer: BufferId,
    agents: &[AgentInfo],
    request: &PcSampling,
) -> usize {
    let mut sampling = 0;
    for agent in agents.iter().filter(|a| a.gpu) {
        let label = format!("agent {} ({})", agent.node_id, agent.name);
        let offers = match calls::agent_configurations(api, AgentId::from_raw(agent.id), crate::guard::report_panic) {
            Ok(configs) => configs.iter().filter_map(offer).collect::<Vec<_>>(),
            Err(Error::Sdk { status: Status::NotImplemented, .. }) => {
                crate::say!(
                    "rocprof-rs: no PC sampling on {label}: the SDK serves it only with \
                     ROCPROFILER_PC_SAMPLING_BETA_ENABLED=ON in the application's environment \
                     (rocprof-rs run sets it); tracing goes on"
                );
                continue;
            }
            Err(e) => {
                crate::say!("rocprof-rs: no PC sampling on {label}: it offers none ({e}); tracing goes on");
                continue;
            }
        };
        match pc_choice::choose(request, &offers, agent.max_engine_clock_mhz) {
            Choice::Refuse(why) => crate::say!("rocprof-rs: no PC sampling on {label}: {why}; tracing goes on"),
            Choice::Sample { method, unit, interval, note } => {
                let configured = calls::configure_service(
                    api,
                    context,
                    AgentId::from_raw(agent.id),
                    sdk_method(method),
                    sdk_unit(unit),
                    interval,
                    buffer,
                );
                match configured {
                    Err(e) => crate::say!("rocprof-rs: no PC sampling on {label}: {e}; tracing goes on"),
                    Ok(()) => {
                        if let Some(note) = note {
                            crate::say!("rocprof-rs: PC sampling on {label}: {note}");
                        }
                        sampling += 1;
                    }
                }
            }
        }
    }
    sampling
}

/// An SDK configuration as an offer; one of a method or unit this build does not know is left
/// out (a newer SDK may add some).
fn offer(config: &sys::rocprofiler_pc_sampling_configuration_t) -> Option<Offer> {
    let method = match config.method {
        sys::ROCPROFILER_PC_SAMPLING_METHOD_HOST_TRAP => PcMethod::HostTrap,
        sys::ROCPROFILER_PC_SAMPLING_METHOD_STOCHASTIC => PcMethod::Stochastic,
        _ => return None,
    };
    let unit = match config.unit {
        sys::ROCPROFILER_PC_SAMPLING_UNIT_TIME => PcUnit::Time,
        sys::ROCPROFILER_PC_SAMPLING_UNIT_CYCLES => PcUnit::Cycles,
        sys::ROCPROFILER_PC_SAMPLING_UNIT_INSTRUCTIONS => PcUnit::Instructions,
        _ => return None,
    };
    let pow2 = u64::from(sys::ROCPROFILER_PC_SAMPLING_CONFIGURATION_FLAGS_INTERVAL_POW2);
    Some(Offer {
        method,
        unit,
        min_interval: config.min_interval as u64,
        max_interval: config.max_interval as u64,
        pow2: config.flags & pow2 != 0,
    })
}

fn sdk_method(method: PcMethod) -> sys::rocprofiler_pc_sampling_method_t {
    match method {
        PcMethod::HostTrap => sys::ROCPROFILER_PC_SAMPLING_METHOD_HOST_TRAP,
        PcMethod::Stochastic => sys::ROCPROFILER_PC_SAMPLING_METHOD_STOCHASTIC,
    }
}

fn sdk_unit(unit: PcUnit) -> sys::rocprofiler_pc_sampling_unit_t {
    match unit {
        PcUnit::Time => sys::ROCPROFILER_PC_SAMPLING_UNIT_TIME,
        PcUnit::Cycles => sys::ROCPROFILER_PC_SAMPLING_UNIT_CYCLES,
        PcUnit::Instructions => sys::ROCPROFILER_PC_SAMPLING_UNIT_INSTRUCTIONS,
    }
}
