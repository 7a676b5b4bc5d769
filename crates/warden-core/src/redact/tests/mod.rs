mod argon2;
mod props;
mod table;
