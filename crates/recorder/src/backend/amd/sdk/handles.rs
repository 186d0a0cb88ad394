//! Newtypes for the SDK's handles, so a buffer cannot be passed where a context is meant: what
//! [`super::calls`] takes and returns.
//!
//! Each is `repr(transparent)` over the raw 64-bit value and converts to and from its sys type.

use rocprofiler_sdk_sys as sys;

macro_rules! handle_newtypes {
    ($($(#[$doc:meta])* $name:ident($sys:ident);)*) => {
        $(
            $(#[$doc])*
            #[repr(transparent)]
            #[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
            pub struct $name(u64);

            impl $name {
                /// The handle for a raw value.
                pub const fn from_raw(raw: u64) -> Self {
                    Self(raw)
                }
                /// The raw value.
                pub const fn raw(self) -> u64 {
                    self.0
                }
                /// Whether this is the null handle (0), which the SDK uses for "none".
                pub const fn is_null(self) -> bool {
                    self.0 == 0
                }
            }

            impl From<sys::$sys> for $name {
                fn from(id: sys::$sys) -> Self {
                    Self(id.handle)
                }
            }

            impl From<$name> for sys::$sys {
                fn from(id: $name) -> Self {
                    sys::$sys { handle: id.0 }
                }
            }

            impl std::fmt::Display for $name {
                fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    write!(f, "{}", self.0)
                }
            }
        )*
    };
}

handle_newtypes! {
    /// A context.
    ContextId(rocprofiler_context_id_t);
    /// A buffer.
    BufferId(rocprofiler_buffer_id_t);
    /// A CPU or GPU agent.
    AgentId(rocprofiler_agent_id_t);
    /// A counter.
    CounterId(rocprofiler_counter_id_t);
    /// A counter configuration.
    CounterConfigId(rocprofiler_counter_config_id_t);
    /// A thread of the SDK's that runs buffer callbacks.
    CallbackThreadId(rocprofiler_callback_thread_t);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_round_trip_through_their_sys_types() {
        let raw = sys::rocprofiler_agent_id_t { handle: 42 };
        let agent = AgentId::from(raw);
        assert_eq!(agent.raw(), 42);
        assert_eq!(sys::rocprofiler_agent_id_t::from(agent).handle, 42);
        assert!(ContextId::default().is_null());
        assert!(!agent.is_null());
    }

    #[test]
    fn handles_are_as_large_as_the_sdk_handles() {
        assert_eq!(std::mem::size_of::<ContextId>(), std::mem::size_of::<sys::rocprofiler_context_id_t>());
    }
}
