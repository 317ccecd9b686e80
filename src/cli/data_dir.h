// The layout of the data dir that `k3c server` prepares before its roles start.
#pragma once

#include <string>

#include "core/status.h"

namespace k3c::cli {

// Creates <data_dir>/server/{db,tls,manifests} and <data_dir>/agent/images, parents
// included, and makes <data_dir>/server mode 0700 (it will hold keys and the database) even
// when it already existed with a looser mode. Fails with the path and errno text.
Status prepare_data_dir(const std::string& data_dir);

}  // namespace k3c::cli
