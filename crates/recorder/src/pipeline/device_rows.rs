//! Device samples to `device_sample` rows: the sampler names each GPU once, and its samples
//! carry the library's index alone.

use std::collections::HashMap;
use std::sync::Arc;

use parquet::file::metadata::KeyValue;

use super::records::{DeviceSample, SampledDevice, TelemetryLibrary};
use rocprof_rs_format::writer::TableWriter;
use rocprof_rs_format::{self as tables, Table};

/// A sampled GPU, as its rows name it.
#[derive(Debug)]
struct Named {
    uuid: Arc<str>,
    library: Arc<str>,
    kind: TelemetryLibrary,
    agent_id: Option<u64>,
}

/// The `device_sample` table's writer and the GPUs its rows name.
#[derive(Debug)]
pub struct DeviceRows {
    pub(crate) writer: TableWriter<tables::DeviceSample>,
    devices: HashMap<u32, Named>,
    /// Samples of a GPU the sampler never named (none should be): left out, counted.
    pub(crate) unnamed: u64,
}

impl DeviceRows {
    pub fn new(options: &rocprof_rs_format::files::WriteOptions, metadata: &[KeyValue]) -> DeviceRows {
        DeviceRows {
            writer: TableWriter::new(options, Table::DeviceSample, metadata.to_vec()),
            devices: HashMap::new(),
            unnamed: 0,
        }
    }

    /// A GPU the sampler reads.
    pub fn name(&mut self, device: &SampledDevice) {
        let named = Named {
            uuid: Arc::from(&*device.uuid),
            library: Arc::from(device.library.name),
            kind: device.library,
            agent_id: device.agent_id,
        };
        self.devices.insert(device.index, named);
    }

    /// A sample's row.
    pub fn add(&mut self, sample: &DeviceSample, pid: u32) {
        let Some(device) = self.devices.get(&sample.index) else {
            self.unnamed += 1;
            return;
        };
        let throttle = sample.readings.throttle_reasons.map(|bits| throttle_names(device.kind, bits));
        self.writer.rows.push(tables::DeviceSampleRow {
            time_ns: sample.time_ns as i64,
            agent_id: device.agent_id,
            device_index: sample.index,
            device_uuid: &device.uuid,
            library: &device.library,
            readings: sample.readings,
            throttle: throttle.as_deref(),
            pid,
        });
    }
}

/// The names of the bits set in a library's throttle mask, comma-separated (empty: none).
pub fn throttle_names(library: TelemetryLibrary, bits: u64) -> String {
    let names = library.throttle_reasons;
    let mut text: Vec<String> = names.iter().filter(|(bit, _)| bits & bit != 0).map(|(_, n)| (*n).to_owned()).collect();
    let known = names.iter().fold(0, |all, (bit, _)| all | bit);
    if bits & !known != 0 {
        text.push(format!("other:{:#x}", bits & !known));
    }
    text.join(",")
}
