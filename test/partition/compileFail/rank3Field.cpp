// SPDX-License-Identifier: MIT
// Must NOT compile: Migration::migrate (and so Rebalancer::rebalance) of a rank-3 view. The
// compiler must say why in one error, not a cascade through the row copies.
#include "fieldsync/partition/migration.hpp"

#include <Kokkos_Core.hpp>

void migrateRank3(const fieldsync::partition::Migration& migration)
{
    Kokkos::View<double***, Kokkos::HostSpace> field("field", 4, 2, 2);
    migration.migrate(4, field);
}
