mod props;
mod table;
