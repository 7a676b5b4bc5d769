//! Proxmox VE: qm, pct, pvesh, pvesm, pvecm, ha-manager, vzdump, and libvirt.

use super::Rule;
#[allow(unused_imports)]
use super::common::*;

pub(crate) const RULES: &[(&str, Rule)] = &[];
