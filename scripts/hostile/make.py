#!/usr/bin/env python3
"""Writes hostile mobile geodatabases and mobile map packages into a folder: small files that
compute huge values or endless rows from nothing, name one table from many layers, list thousands
of maps, or carry escape codes in their names. `scripts/hostile/run` reads each with every command.
"""
import os, sqlite3, struct, sys, zipfile, json

out = sys.argv[1] if len(sys.argv) > 1 else "hostile"
os.makedirs(out, exist_ok=True)


def signed(v):
    m, sign = abs(v), 0x40 if v < 0 else 0
    b = [(m & 0x3F) | sign]
    m >>= 6
    while m:
        b[-1] |= 0x80
        b.append(m & 0x7F)
        m >>= 7
    return bytes(b)


def line(points):
    """A polyline shape blob as mobile geodatabases store it (see Sources/Geodatabase/ShapeBlob.swift)."""
    stream, x, y = bytearray(), 0, 0
    for px, py in points:
        stream += signed(px - x) + signed(py - y)
        x, y = px, py
    head = bytearray(b"\x64\xe1\x93\x04") + struct.pack("<I", len(points)) + b"\x14\x04"
    if len(points) > 10:
        xs, ys = [p[0] for p in points], [p[1] for p in points]
        head += signed(min(xs)) + signed(min(ys)) + signed(max(xs)) + signed(max(ys))
    head += signed(len(stream)) + b"\x01\x00" + b"\x01\x00\x00\x00"
    return bytes(head + stream)


def geodatabase(name, body):
    path = os.path.join(out, name)
    if os.path.exists(path):
        os.remove(path)
    db = sqlite3.connect(path)
    db.executescript("""
        CREATE TABLE st_geometry_columns (f_table_name, f_geometry_column, geometry_type, coord_dimension, srid);
        CREATE TABLE st_aux_spatial_reference_systems (srid, auth_srid, falsex, falsey, xyunits);
        INSERT INTO st_aux_spatial_reference_systems VALUES (300001, 3857, -20037700, -30241100, 10000);
    """)
    body(db)
    db.commit()
    db.close()
    return path


def layer(db, table, shape_sql="NULL", rows=1, text="'x'", view=None):
    db.execute(f"INSERT INTO st_geometry_columns VALUES ('{table}', 'Shape', 5, 2, 300001)")
    db.execute(f"CREATE TABLE \"{table}\" (OBJECTID integer primary key, NAME text, Shape blob)")
    if view:
        db.execute(f"CREATE VIEW \"{table}_evw\" AS {view}")


BLOB = lambda points: "x'" + line(points).hex() + "'"
CTE = lambda n: f"WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {n})"

# Layer descriptions of 40 MB each, computed by a generated column.
def svcgen(db):
    layer(db, "Roads")
    db.execute("CREATE TABLE GDB_ServiceItems (ItemId integer, DatasetName text, ItemType integer,"
               " ItemInfo text GENERATED ALWAYS AS (hex(zeroblob(20000000))) VIRTUAL)")
    for i in range(10):
        db.execute("INSERT INTO GDB_ServiceItems (ItemId, DatasetName, ItemType) VALUES (?, 'Roads', 1)", (i,))
geodatabase("svcgen-10.geodatabase", svcgen)

# Layer descriptions of 8 MB each, ten of them (past the total read).
def svcbig(db):
    layer(db, "Roads")
    db.execute("CREATE TABLE GDB_ServiceItems (ItemId integer, DatasetName text, ItemType integer,"
               " ItemInfo text GENERATED ALWAYS AS ('{\"name\":\"' || hex(zeroblob(4000000)) || '\"}') VIRTUAL)")
    for i in range(10):
        db.execute("INSERT INTO GDB_ServiceItems (ItemId, DatasetName, ItemType) VALUES (?, 'Roads', 1)", (i,))
geodatabase("svcbig-10.geodatabase", svcbig)

# Live rows of 60 MB strings, and of 15 MB ones (just under the largest value), many of them.
geodatabase("evwbig.geodatabase", lambda db: layer(db, "USMajorCities", view=f"{CTE(50)} SELECT i AS OBJECTID, hex(zeroblob(30000000)) AS NAME, NULL AS Shape FROM n"))
geodatabase("evw15.geodatabase", lambda db: layer(db, "USMajorCities", view=f"{CTE(1000)} SELECT i AS OBJECTID, hex(zeroblob(7500000)) AS NAME, NULL AS Shape FROM n"))

# 2,000 layers on one 250,000-row view of points.
point = BLOB([(10_000_000, 10_000_000), (10_000_100, 10_000_100)])
def many_layers(db):
    db.execute(f"CREATE VIEW base AS {CTE(250_000)} SELECT i AS OBJECTID, 'n' || i AS NAME, {point} AS Shape FROM n")
    for i in range(2000):
        layer(db, f"L{i}", view="SELECT * FROM base")
geodatabase("layers-2000-250000.geodatabase", many_layers)

# One line of a million vertices repeated 100,000 times; one of ten million, once.
mega = BLOB([(10_000_000 + i, 10_000_000 + (i % 3)) for i in range(1_000_000)])
geodatabase("mega-1000000.geodatabase", lambda db: layer(db, "Roads", view=f"{CTE(100_000)} SELECT i AS OBJECTID, 'r' AS NAME, {mega} AS Shape FROM n"))
def mega10(db):
    layer(db, "Roads")
    db.execute("INSERT INTO Roads VALUES (1, 'r', ?)", (line([(10_000_000 + i, 10_000_000 + (i % 3)) for i in range(10_000_000)]),))
geodatabase("mega-10000000.geodatabase", mega10)

# Five layers on views that never end.
def slow(db):
    for i in range(5):
        layer(db, f"S{i}", view="WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT i AS OBJECTID, NULL AS NAME, NULL AS Shape FROM n WHERE i < 0")
geodatabase("slowlayers-5.geodatabase", slow)

# A plain geodatabase of a million points, and a package whose map names its table 100 times.
def rows(db):
    layer(db, "Places")
    db.execute(f"{CTE(1_000_000)} INSERT INTO Places SELECT i, 'p' || i, {point} FROM n")
rows_path = geodatabase("rows-1000000.geodatabase", rows)


def mmpk(name, maps, extra=None, info=None, deflated=False):
    path = os.path.join(out, name)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED if deflated else zipfile.ZIP_STORED) as z:
        if info is not None:
            z.writestr("package.info", json.dumps(info))
        for entry, text in maps:
            z.writestr(entry, text)
        for entry, source in (extra or []):
            z.write(source, entry)


def map_json(layers):
    return json.dumps({"map": {"baseMap": {"baseMapLayers": []}, "operationalLayers": layers}})

place = {"layerType": "ArcGISFeatureLayer", "title": "Places", "path": "file:./rows.geodatabase"}
mmpk("layers-100-rows-1000000.mmpk", [("p13/map.mmap", map_json([place] * 100))], extra=[("p13/rows.geodatabase", rows_path)])
fat = map_json([place] * 245_000)
mmpk("fatmaps-20.mmpk", [(f"p13/m{i}.mmap", fat) for i in range(20)], deflated=True)
mmpk("maps-10000.mmpk", [(f"p13/m{i:05}.mmap", json.dumps({"map": {"operationalLayers": []}, "item": {"title": f"Map {i}"}})) for i in range(10_000)],
     info={"title": "Many", "maps": [f"Map {i}" for i in reversed(range(10_000))]})

# Escape codes in entry names (a window title, a screen clear, a C1 CSI, a right-to-left override).
esc = "\x1b]0;pwned\x07\x1b[2J\u009b31m\u202e"
mmpk("names-esc.mmpk", [("p13/good.mmap", map_json([])), (f"p13/{esc}.mmap", "{not json")])

# FIFOs named as packages.
for name in ["fifo.tpk", "fifo.vtpk", "fifo.tpkx", "fifo.geodatabase", "fifo"]:
    path = os.path.join(out, name)
    if not os.path.exists(path):
        os.mkfifo(path)
print(out)
