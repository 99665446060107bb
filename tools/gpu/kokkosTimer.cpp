// SPDX-License-Identifier: MIT
// A Kokkos Tools library that says where a program's host time goes, by name: profiling regions
// (fieldsync's exchange phases), kernel launches, fences and deep copies. It asks Kokkos for no
// global fencing, so a kernel's entry is its launch and the GPU's time shows in the fences that
// wait for it. Only what happens inside a region whose name starts with FIELDSYNC_TIMER_SCOPE
// (all, when unset) is counted, under the name of the outermost such region; at the end each rank
// prints one table to stderr.
//
//   g++ -O2 -shared -fPIC -o libfieldsync-timer.so tools/gpu/kokkosTimer.cpp
//   KOKKOS_TOOLS_LIBS=$PWD/libfieldsync-timer.so FIELDSYNC_TIMER_SCOPE=gpu_bench::library ...
//
// It needs no Kokkos headers: the tool interface is plain C (Kokkos_Profiling_C_Interface.h).
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace
{

struct Total
{
    double seconds { 0.0 };
    long count { 0 };
};

double now()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

struct Timer
{
    std::map<std::string, Total> totals;
    std::vector<std::pair<std::string, double>> regions; // open regions: name, start
    std::vector<std::pair<std::string, double>> open;    // kernels, fences, copies in flight
    std::string scope;
    std::string label; // the outermost open region that matches the scope
    int inScope { 0 }; // open regions that match the scope

    [[nodiscard]] bool counting() const { return scope.empty() || inScope > 0; }

    void add(const std::string& name, double start)
    {
        Total& t = totals[label.empty() ? name : label + " | " + name];
        t.seconds += now() - start;
        ++t.count;
    }
};

Timer& timer()
{
    static Timer t;
    return t;
}

std::uint64_t begin(const std::string& name)
{
    timer().open.emplace_back(name, now());
    return timer().open.size() - 1;
}

void end(std::uint64_t id)
{
    Timer& t = timer();
    if (id + 1 == t.open.size())
    {
        if (t.counting())
        {
            t.add(t.open.back().first, t.open.back().second);
        }
        t.open.pop_back();
    }
}

} // namespace

extern "C"
{

    struct Kokkos_Tools_ToolSettings
    {
        bool requires_global_fencing;
        bool padding[255];
    };

    struct SpaceHandle
    {
        char name[64];
    };

    void kokkosp_request_tool_settings(const std::uint32_t, Kokkos_Tools_ToolSettings* settings)
    {
        settings->requires_global_fencing = false;
    }

    void kokkosp_init_library(const int, const std::uint64_t, const std::uint32_t, void*)
    {
        const char* scope = std::getenv("FIELDSYNC_TIMER_SCOPE");
        timer().scope = scope != nullptr ? scope : "";
    }

    void kokkosp_finalize_library()
    {
        const Timer& t = timer();
        const char* rank = std::getenv("PMI_RANK");
        if (rank == nullptr)
        {
            rank = std::getenv("OMPI_COMM_WORLD_RANK");
        }
        std::string text = "fieldsync-timer, rank " + std::string(rank != nullptr ? rank : "?") +
                           ", scope '" + t.scope + "':\n";
        char line[256];
        std::snprintf(
            line, sizeof line, "%12s %10s %12s  %s\n", "total us", "count", "us each", "name"
        );
        text += line;
        for (const auto& [name, total] : t.totals)
        {
            std::snprintf(
                line,
                sizeof line,
                "%12.1f %10ld %12.3f  %s\n",
                total.seconds * 1e6,
                total.count,
                total.seconds * 1e6 / static_cast<double>(total.count),
                name.c_str()
            );
            text += line;
        }
        std::fputs(text.c_str(), stderr);
    }

    void kokkosp_push_profile_region(const char* name)
    {
        Timer& t = timer();
        t.regions.emplace_back(name, now());
        if (!t.scope.empty() && std::strncmp(name, t.scope.c_str(), t.scope.size()) == 0 &&
            t.inScope++ == 0)
        {
            t.label = name;
        }
    }

    void kokkosp_pop_profile_region()
    {
        Timer& t = timer();
        if (t.regions.empty())
        {
            return;
        }
        const auto [name, start] = t.regions.back();
        t.regions.pop_back();
        if (t.counting())
        {
            t.add("region " + name, start);
        }
        if (!t.scope.empty() && name.compare(0, t.scope.size(), t.scope) == 0 && --t.inScope == 0)
        {
            t.label.clear();
        }
    }

    void kokkosp_begin_parallel_for(const char* name, const std::uint32_t, std::uint64_t* id)
    {
        *id = begin(std::string("launch ") + name);
    }

    void kokkosp_end_parallel_for(const std::uint64_t id)
    {
        end(id);
    }

    void kokkosp_begin_fence(const char* name, const std::uint32_t, std::uint64_t* id)
    {
        *id = begin(std::string("fence ") + name);
    }

    void kokkosp_end_fence(const std::uint64_t id)
    {
        end(id);
    }

    void kokkosp_begin_deep_copy(
        SpaceHandle dst,
        const char*,
        const void*,
        SpaceHandle src,
        const char*,
        const void*,
        std::uint64_t
    )
    {
        begin(std::string("deep_copy ") + src.name + " -> " + dst.name);
    }

    void kokkosp_end_deep_copy()
    {
        end(timer().open.size() - 1);
    }

} // extern "C"
