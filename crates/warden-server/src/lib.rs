//! `warden serve`: the control plane.
