//! Table tests for the networking rules, by family.

mod cloud;
mod devops;
mod iproute;
mod links;
