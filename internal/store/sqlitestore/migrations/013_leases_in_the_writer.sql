-- A lease fences the workers of the one process that writes the file, and
-- ends with that process: the store keeps leases in the writer's memory
-- (leases.go), and the table goes.
DROP TABLE leases;
