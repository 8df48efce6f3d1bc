"""Renders photographs of wooden Go and Gomoku boards in 3D with Blender, each with its
position, for measuring ``arena photo`` on pictures that no 2D generator drew.

Each render is a wooden board (15x15, 19x19 or 20x20 lines, cells a little longer
than wide as on real Go boards, star points) on a table, with biconvex black and white
stones at a random position (each stone a little off its point, as placed by hand),
seen by a camera at a random height, tilt (up to 40 degrees from straight above),
turn and focal length, lit by the sky and a sun or a lamp at random, which cast the
stones' shadows. Rendered with Cycles on the CPU (few samples, no denoiser: the grain
stays, as in a phone's dim photo), then saved as JPEG.

Run by Blender itself, with only the standard library (Blender's Python has no numpy):

    nice -n 19 blender -b --python bench/blender_boards.py -- --count 40 --out /tmp/renders

Writes ``OUT/render-SEED.jpg`` and ``OUT/render-SEED.json``: ``stones``, the position
as the picture shows it (row 0 at the top of the picture, 0 empty, 1 black, 2 white),
``layout`` ("points"), the board's size and the scene's random choices. Measure with
``bench/bench_photo.py --sets render --renders OUT``.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import bpy  # type: ignore[import-not-found]
from bpy_extras.object_utils import world_to_camera_view  # type: ignore[import-not-found]
from mathutils import Vector  # type: ignore[import-not-found]

#: The star points (0-based, from each side) of the usual board sizes.
STARS = {15: (3, 7, 11), 19: (3, 9, 15), 20: ()}


@dataclass
class Scene:
    """One render's random choices, written beside the picture."""

    seed: int
    size: int
    cell_x: float  # metres between the lines along the board's x (a real Go board: 22 mm)
    cell_y: float
    stone: float  # a stone's diameter, in cells
    count: int  # stones on the board
    tilt: float  # the camera's angle from straight down, degrees
    turn: float  # the camera's direction around the board, degrees
    lens: float  # focal length, mm (36 mm sensor)
    light: str
    samples: int
    width: int
    height: int
    quality: int


def choose(seed: int) -> Scene:
    rng = random.Random(seed)
    size = rng.choice((15, 15, 19, 19, 20))
    cell_x = rng.uniform(0.021, 0.024)
    points = size * size
    stones = 0 if rng.random() < 0.05 else rng.randint(1, int(points * 0.35))
    quarter = rng.randrange(4) * 90
    landscape = rng.random() < 0.7
    return Scene(seed=seed, size=size, cell_x=cell_x,
                 cell_y=cell_x * rng.uniform(1.0, 1.08), stone=rng.uniform(0.86, 0.97),
                 count=stones, tilt=rng.uniform(0, 40), turn=quarter + rng.uniform(-30, 30),
                 lens=rng.uniform(26, 55), light=rng.choice(("sun", "sun", "lamp")),
                 samples=rng.choice((8, 12, 16)), width=1024 if landscape else 768,
                 height=768 if landscape else 1024, quality=rng.randint(70, 92))


def position(rng: random.Random, size: int, count: int) -> list[list[int]]:
    """``count`` stones at random points, black's one more than white's or as many,
    indexed [y][x] in the board's own coordinates."""
    points = rng.sample(range(size * size), count)
    board = [[0] * size for _ in range(size)]
    for i, point in enumerate(points):
        board[point // size][point % size] = 1 + i % 2
    return board


# -- materials ----------------------------------------------------------------------------

def _principled(name: str) -> tuple[object, object]:
    material = bpy.data.materials.new(name)
    material.use_nodes = True
    return material, material.node_tree.nodes["Principled BSDF"]


def wood(rng: random.Random) -> object:
    """Kaya, spruce or a darker wood: a wave texture's bands, distorted, for the grain."""
    material, shader = _principled("wood")
    nodes, links = material.node_tree.nodes, material.node_tree.links
    wave = nodes.new("ShaderNodeTexWave")
    wave.inputs["Scale"].default_value = rng.uniform(2, 8)
    wave.inputs["Distortion"].default_value = rng.uniform(2, 10)
    wave.inputs["Detail"].default_value = 3
    ramp = nodes.new("ShaderNodeValToRGB")
    base = (rng.uniform(0.55, 0.85), rng.uniform(0.35, 0.6), rng.uniform(0.12, 0.3))
    dark = rng.uniform(0.6, 0.85)
    ramp.color_ramp.elements[0].color = (*(c * dark for c in base), 1)
    ramp.color_ramp.elements[1].color = (*base, 1)
    mapping = nodes.new("ShaderNodeMapping")
    mapping.inputs["Scale"].default_value = (1, rng.uniform(8, 20), 1)
    coords = nodes.new("ShaderNodeTexCoord")
    links.new(coords.outputs["Object"], mapping.inputs["Vector"])
    links.new(mapping.outputs["Vector"], wave.inputs["Vector"])
    links.new(wave.outputs["Fac"], ramp.inputs["Fac"])
    links.new(ramp.outputs["Color"], shader.inputs["Base Color"])
    shader.inputs["Roughness"].default_value = rng.uniform(0.35, 0.7)
    return material


def flat(name: str, colour: tuple[float, float, float], roughness: float,
         specular: float = 0.5) -> object:
    material, shader = _principled(name)
    shader.inputs["Base Color"].default_value = (*colour, 1)
    shader.inputs["Roughness"].default_value = roughness
    shader.inputs["Specular"].default_value = specular
    return material


# -- the scene ----------------------------------------------------------------------------

def box(name: str, size: tuple[float, float, float], at: tuple[float, float, float],
        material: object) -> object:
    bpy.ops.mesh.primitive_cube_add(size=1, location=at)
    obj = bpy.context.object
    obj.name = name
    obj.scale = size
    obj.data.materials.append(material)
    return obj


def build(scene: Scene, stones: list[list[int]]) -> None:
    """The board, its lines and stones, the table, lights and camera."""
    rng = random.Random(scene.seed * 7 + 1)
    bpy.ops.wm.read_factory_settings(use_empty=True)
    n, cx, cy = scene.size, scene.cell_x, scene.cell_y
    margin_x, margin_y = cx * rng.uniform(0.6, 1.3), cy * rng.uniform(0.6, 1.3)
    width, depth = (n - 1) * cx + 2 * margin_x, (n - 1) * cy + 2 * margin_y
    thick = rng.uniform(0.02, 0.12)
    box("board", (width, depth, thick), (0, 0, -thick / 2), wood(rng))
    grey = rng.uniform(0.05, 0.35)
    table = flat("table", tuple(grey * rng.uniform(0.7, 1.3) for _ in range(3)),
                 rng.uniform(0.3, 0.9))
    box("table", (3, 3, 0.02), (0, 0, -thick - 0.01), table)

    ink = flat("ink", (0.01, 0.01, 0.01), 0.6)
    line = cx * rng.uniform(0.035, 0.06)
    for i in range(n):  # a line's thickness above the wood keeps it from z-fighting
        box(f"row{i}", ((n - 1) * cx + line, line, 0.0002),
            (0, (n - 1) / 2 * cy - i * cy, 0.0001), ink)
        box(f"col{i}", (line, (n - 1) * cy + line, 0.0002),
            (-(n - 1) / 2 * cx + i * cx, 0, 0.0001), ink)
    points = [Vector((-(n - 1) / 2 * cx + x * cx, (n - 1) / 2 * cy - y * cy, 0))
              for y in range(n) for x in range(n)]
    for sy in STARS[n]:
        for sx in STARS[n]:
            bpy.ops.mesh.primitive_cylinder_add(radius=line * 2.2, depth=0.0003,
                                                location=points[sy * n + sx], vertices=24)
            bpy.context.object.data.materials.append(ink)

    black = flat("black", (0.015, 0.015, 0.017), rng.uniform(0.15, 0.45))
    white = flat("white", (0.82, 0.82, 0.8), rng.uniform(0.15, 0.4))
    radius = scene.stone * cx / 2
    height = radius * rng.uniform(0.38, 0.5)
    bpy.ops.mesh.primitive_uv_sphere_add(segments=32, ring_count=16, radius=1)
    for face in bpy.context.object.data.polygons:
        face.use_smooth = True
    shapes = {}
    for colour, material in ((1, black), (2, white)):
        mesh = bpy.context.object.data.copy()
        mesh.materials.append(material)
        shapes[colour] = mesh
    bpy.ops.object.delete()
    for y in range(n):
        for x in range(n):
            if stones[y][x]:
                stone = bpy.data.objects.new(f"stone{x},{y}", shapes[stones[y][x]])
                jitter = Vector((rng.gauss(0, 0.05) * cx, rng.gauss(0, 0.05) * cy, height))
                stone.location = points[y * n + x] + jitter
                stone.scale = (radius, radius, height)
                bpy.context.collection.objects.link(stone)

    world = bpy.data.worlds.new("sky")
    world.use_nodes = True
    background = world.node_tree.nodes["Background"]
    tint = rng.uniform(0.85, 1.0)
    background.inputs["Color"].default_value = (tint, tint, rng.uniform(0.85, 1.0), 1)
    background.inputs["Strength"].default_value = rng.uniform(0.15, 0.8)
    bpy.context.scene.world = world
    elevation, around = math.radians(rng.uniform(30, 80)), rng.uniform(0, 2 * math.pi)
    if scene.light == "sun":
        data = bpy.data.lights.new("sun", "SUN")
        data.energy = rng.uniform(1.5, 5)
        data.angle = math.radians(rng.uniform(0.5, 12))
        lamp = bpy.data.objects.new("sun", data)
        lamp.rotation_euler = (math.pi / 2 - elevation, 0, around + math.pi / 2)
    else:
        data = bpy.data.lights.new("lamp", "POINT")
        reach = rng.uniform(0.4, 1.2)
        # As bright on the board wherever the lamp stands: a camera sets its exposure.
        data.energy = rng.uniform(60, 160) * reach ** 2
        data.shadow_soft_size = rng.uniform(0.02, 0.2)
        lamp = bpy.data.objects.new("lamp", data)
        lamp.location = (reach * math.cos(elevation) * math.cos(around),
                         reach * math.cos(elevation) * math.sin(around),
                         reach * math.sin(elevation))
    bpy.context.collection.objects.link(lamp)

    corners = [Vector((sx * width / 2, sy * depth / 2, 0)) for sx in (-1, 1) for sy in (-1, 1)]
    place_camera(scene, rng, corners)


def place_camera(scene: Scene, rng: random.Random, corners: list[Vector]) -> None:
    """Aims the camera at the board from the scene's tilt and turn, at the distance
    where the board fills a random share (70 to 92 %) of the picture's shorter side."""
    data = bpy.data.cameras.new("camera")
    data.lens, data.sensor_width = scene.lens, 36
    camera = bpy.data.objects.new("camera", data)
    bpy.context.collection.objects.link(camera)
    bpy.context.scene.camera = camera
    render = bpy.context.scene.render
    render.resolution_x, render.resolution_y = scene.width, scene.height
    tilt, turn = math.radians(scene.tilt), math.radians(scene.turn)
    # Seen from the turn's side: at turn 0 the camera stands at the board's bottom edge.
    direction = Vector((math.sin(tilt) * math.sin(turn), -math.sin(tilt) * math.cos(turn),
                        math.cos(tilt)))
    target = Vector((rng.gauss(0, 0.01), rng.gauss(0, 0.01), 0))
    fill, distance = rng.uniform(0.7, 0.92), 1.0
    roll = turn + math.radians(rng.uniform(-8, 8))  # the camera held a little askew
    for _ in range(8):
        camera.location = target + direction * distance
        up = Vector((-math.sin(roll), math.cos(roll), 0))  # the board's far side is up
        forward = (target - camera.location).normalized()
        right = forward.cross(up).normalized()
        rotation = camera.rotation_euler.to_matrix()
        rotation.col[0], rotation.col[1], rotation.col[2] = right, right.cross(forward), -forward
        camera.rotation_euler = rotation.to_euler()
        bpy.context.view_layer.update()
        seen = [world_to_camera_view(bpy.context.scene, camera, c) for c in corners]
        spread = max(max(abs(v.x - 0.5) * scene.width, abs(v.y - 0.5) * scene.height)
                     for v in seen) * 2 / min(scene.width, scene.height)
        distance *= spread / fill


def as_seen(stones: list[list[int]], scene: Scene) -> list[list[int]]:
    """The position as ``arena photo`` numbers a picture's grid: of the eight ways, the
    one whose columns run nearest the picture's x axis at the board's centre, rightward,
    and its rows downward (:func:`arena.photo.grid._orient`)."""
    n = scene.size
    view, camera = bpy.context.scene, bpy.context.scene.camera

    def pixel(point: Vector) -> Vector:
        seen = world_to_camera_view(view, camera, point)
        return Vector((seen.x * scene.width, (1 - seen.y) * scene.height))

    centre = pixel(Vector((0, 0, 0)))
    du = pixel(Vector((scene.cell_x, 0, 0))) - centre  # the board's x, one line on
    dv = pixel(Vector((0, -scene.cell_y, 0))) - centre  # its rows, one line down
    out = [[0] * n for _ in range(n)]
    for y in range(n):
        for x in range(n):
            if abs(du.x) >= abs(dv.x):
                row, column = (y if dv.y > 0 else n - 1 - y), (x if du.x > 0 else n - 1 - x)
            else:
                row, column = (x if du.y > 0 else n - 1 - x), (y if dv.x > 0 else n - 1 - y)
            out[row][column] = stones[y][x]
    return out


def render(scene: Scene, out: Path, picture_too: bool = True, threads: int = 2
           ) -> dict[str, object]:
    """Renders the scene into ``out`` with its position, on ``threads`` CPU threads;
    with ``picture_too`` false, only the position (to number an earlier render's
    anew)."""
    rng = random.Random(scene.seed)
    stones = position(rng, scene.size, scene.count)
    build(scene, stones)
    settings = bpy.context.scene
    settings.render.engine = "CYCLES"
    settings.cycles.device = "CPU"
    settings.cycles.samples = scene.samples
    settings.cycles.use_denoising = False
    settings.cycles.max_bounces = 4
    settings.render.threads_mode = "FIXED"
    settings.render.threads = threads
    settings.render.image_settings.file_format = "JPEG"
    settings.render.image_settings.quality = scene.quality
    picture = out / f"render-{scene.seed}.jpg"
    settings.render.filepath = str(picture)
    if picture_too:
        bpy.ops.render.render(write_still=True)
    seen = as_seen(stones, scene)
    record = {"stones": seen, "layout": "points", **asdict(scene)}
    picture.with_suffix(".json").write_text(json.dumps(record))
    return record


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=40)
    parser.add_argument("--first", type=int, default=0, help="first seed")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--positions-only", action="store_true",
                        help="write only the positions (of pictures rendered before)")
    parser.add_argument("--threads", type=int, default=2,
                        help="CPU threads of the render (default 2; 1 on a shared machine)")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for seed in range(args.first, args.first + args.count):
        started = time.perf_counter()
        scene = choose(seed)
        render(scene, args.out, not args.positions_only, args.threads)
        print(f"render-{seed}: {scene.size}x{scene.size}, {scene.count} stones, "
              f"tilt {scene.tilt:.0f}, {scene.samples} samples, "
              f"{time.perf_counter() - started:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []))
