/* Exact plane geometry for the wall checks (walls.c): the sign of an orientation, and
 * whether two segments meet, decided without rounding errors, so that a polyline written
 * as touching itself is refused and one that does not is accepted, however close. */
#ifndef MS_SCENE_WALL_GEOMETRY_H
#define MS_SCENE_WALL_GEOMETRY_H

/* The sign of the cross product (b - a) x (c - a): 1 when a, b, c turn anticlockwise,
 * -1 clockwise, 0 when they are collinear. Exact for every coordinate within 2^-450 of
 * the largest of the three points' (any coordinate one would write). */
int ms_orient2d(const double a[2], const double b[2], const double c[2]);

/* Whether the closed segments p0-p1 and q0-q1 have a point in common (touching counts). */
int ms_segments_meet(const double p0[2], const double p1[2], const double q0[2],
                     const double q1[2]);

/* Whether the segments a-b and b-c, both of non-zero length, lie on one line and b-c turns
 * back along a-b (the polyline folds onto itself at b). */
int ms_folds_back(const double a[2], const double b[2], const double c[2]);

/* The same two up to the rounding of the coordinates as read (a relative 2^-53 each):
 * points written in decimals on one line are seldom exactly on one in binary. */
int ms_collinear_within_rounding(const double a[2], const double b[2], const double c[2]);
int ms_folds_back_within_rounding(const double a[2], const double b[2], const double c[2]);

#endif
