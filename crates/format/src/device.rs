//! What `device_sample` holds of one GPU at one time, as one type for the recorder that fills
//! the table and the readers that take it back: [`Readings`], declared with the table's
//! columns ([`crate::DeviceSample`]), so the type, the columns and their reading cannot part.

pub use crate::Readings;
