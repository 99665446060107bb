// SPDX-License-Identifier: MIT
// fieldsync-gmsh-rectangle NX NY FILE: writes a triangulated rectangle (RectangleMsh) as a
// Gmsh 4.1 ASCII file, for the tests and the memory measurements of the parallel Gmsh reader.
#include "rectangleMsh.hpp"

#include <cstdio>
#include <exception>
#include <string>

int main(int argc, char** argv)
{
    if (argc != 4)
    {
        std::fprintf(
            stderr, "usage: %s NX NY FILE (a triangulated rectangle, Gmsh 4.1)\n", argv[0]
        );
        return 2;
    }
    try
    {
        const fieldsync::heat::RectangleMsh mesh(std::stoi(argv[1]), std::stoi(argv[2]));
        mesh.write(argv[3]);
        std::printf(
            "wrote %s: %lld triangles\n", argv[3], static_cast<long long>(mesh.nTriangles())
        );
    }
    catch (const std::exception& e)
    {
        std::fprintf(stderr, "%s\n", e.what());
        return 2;
    }
    return 0;
}
