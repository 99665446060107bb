// A unit square with a hole, unstructured triangles (fieldsync test mesh)
lc = 0.12;
Point(1) = {0, 0, 0, lc}; Point(2) = {1, 0, 0, lc}; Point(3) = {1, 1, 0, lc}; Point(4) = {0, 1, 0, lc};
Point(5) = {0.5, 0.5, 0, lc}; Point(6) = {0.7, 0.5, 0, lc}; Point(7) = {0.3, 0.5, 0, lc};
Line(1) = {1, 2}; Line(2) = {2, 3}; Line(3) = {3, 4}; Line(4) = {4, 1};
Circle(5) = {6, 5, 7}; Circle(6) = {7, 5, 6};
Curve Loop(1) = {1, 2, 3, 4}; Curve Loop(2) = {5, 6};
Plane Surface(1) = {1, 2};
