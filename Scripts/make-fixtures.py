#!/usr/bin/env python3
"""Regenerates the built-in fixture images and the Open Market catalogue.

Run from the repository root: `python3 Scripts/make-fixtures.py` (needs Pillow:
`pip install pillow`). The output is committed; the server never runs this.
Deterministic: the same script gives the same files.
"""
import json, os, random
from PIL import Image, ImageDraw

ROOT = os.path.join(os.path.dirname(__file__), "..", "Fixtures")

def picture(size, colour, accent, shape, label):
    w, h = size
    img = Image.new("RGB", size, colour)
    d = ImageDraw.Draw(img)
    m = min(w, h) // 6
    if shape == 0:
        d.ellipse([m, m, w - m, h - m], fill=accent, outline=(255, 255, 255), width=max(1, m // 4))
    elif shape == 1:
        d.rectangle([m, m, w - m, h - m], fill=accent)
    else:
        d.polygon([(w // 2, m), (w - m, h - m), (m, h - m)], fill=accent)
    d.text((m // 2, m // 3), label, fill=(255, 255, 255))
    return img

# Restaurant: one PNG per menu item, and a JPEG of it.
palette = [(176, 58, 46), (211, 84, 0), (40, 116, 166), (125, 60, 152), (183, 149, 11), (30, 132, 73)]
os.makedirs(f"{ROOT}/restaurant/images", exist_ok=True)
for i in range(1, 7):
    c = palette[i - 1]
    accent = tuple(min(255, v + 70) for v in c)
    image = picture((120, 120), c, accent, i % 3, f"#{i}")
    image.save(f"{ROOT}/restaurant/images/{i}.png", optimize=True)
    # The vapor-8090 variant links `N.jpg`: the same picture as a JPEG.
    image.convert("RGB").save(f"{ROOT}/restaurant/images/{i}.jpg", quality=85)

# Open Market: 24 origin/thumbnail pairs shared by the catalogue, PNG and JPEG.
rng = random.Random(20220104)
om = f"{ROOT}/openmarket/images"
os.makedirs(f"{om}/origin", exist_ok=True)
os.makedirs(f"{om}/thumb", exist_ok=True)
pictures = []
for k in range(24):
    c = (rng.randrange(30, 200), rng.randrange(30, 200), rng.randrange(30, 200))
    accent = tuple(min(255, v + 80) for v in c)
    ext = "png" if k % 3 == 0 else "jpg"
    name = f"item{k + 1:02d}.{ext}"
    origin = picture((320, 240), c, accent, k % 3, f"item {k + 1}")
    thumb = origin.resize((80, 60))
    if ext == "png":
        origin.save(f"{om}/origin/{name}", optimize=True)
        thumb.save(f"{om}/thumb/{name}", optimize=True)
    else:
        origin.save(f"{om}/origin/{name}", quality=70)
        thumb.save(f"{om}/thumb/{name}", quality=70)
    pictures.append(name)

vendors = [
    {"id": 1, "name": "yagom-mart", "identifier": "c4dedb6a-6d36-11ec-abfa-d5e5a5f1d3c1", "password": "mart1234", "created_at": "2021-12-20T00:00:00.00"},
    {"id": 2, "name": "dacodaco", "identifier": "7184295e-669f-11ec-8eff-b53506094baa", "password": "dacodaco1", "created_at": "2021-12-26T00:00:00.00"},
    {"id": 3, "name": "seoul-gadgets", "identifier": "a3e7b8f4-6e11-11ec-bf33-3d9d6a1c2b70", "password": "gadget-pw", "created_at": "2021-12-27T00:00:00.00"},
    {"id": 4, "name": "brooklyn-goods", "identifier": "e1f0c2d8-6f02-11ec-9626-1b8f5b2e7c44", "password": "brooklyn9", "created_at": "2021-12-28T00:00:00.00"},
]
for v in vendors:
    v["issued_at"] = v["created_at"]

krw_names = ["팥빙수", "아이폰 13", "에어팟 프로", "맥북 에어", "딸기 케이크", "커피 원두 1kg", "무선 키보드", "텀블러",
             "아이패드 미니", "블루투스 스피커", "한우 세트", "김치 5kg", "녹차 라떼", "운동화", "백팩", "우산"]
usd_names = ["MacBook Pro 14", "Mechanical Keyboard", "USB-C Hub", "Pizza Stone", "Desk Lamp", "Noise Cancelling Headphones",
             "Espresso Machine", "Yoga Mat", "Running Shoes", "Leather Wallet", "Water Bottle", "Standing Desk"]
products = []
pid = 0
day = 0
skipped = {5, 6, 7, 8, 9, 10, 11, 12, 14, 40, 77}  # ids deleted on the real server before the snapshot
for n in range(137):
    pid += 1
    if pid in skipped:
        continue
    day = min(27, (pid - 1) // 5)
    date = f"2022-01-{1 + day:02d}T00:00:00.00" if pid > 10 else f"2021-12-{26 + min(pid, 5):02d}T00:00:00.00"
    vendor = vendors[pid % 4]
    usd = vendor["id"] == 4 or (pid % 7 == 0)
    if usd:
        name = f"{usd_names[pid % len(usd_names)]} {pid}"
        price = rng.choice([5, 12, 19, 25, 49, 99, 149, 299, 999, 1299])
    else:
        name = f"{krw_names[pid % len(krw_names)]} {pid}"
        price = rng.choice([1000, 2000, 3500, 9900, 15000, 25000, 49000, 129000, 990000, 1690000])
    discounted = 0
    if pid % 4 == 1:
        discounted = max(1, price // 10) if usd else (price // 10 // 100) * 100 or 100
    stock = 0 if pid % 6 == 0 else rng.choice([1, 3, 10, 25, 100, 999])
    count = 1 + (pid % 3)
    images = []
    for j in range(count):
        images.append({"id": pid * 10 + j, "file": pictures[(pid + j * 7) % len(pictures)]})
    products.append({
        "id": pid, "vendor_id": vendor["id"], "name": name,
        "description": f"{name} — sample product #{pid} from {vendor['name']}. Editable fixture text.",
        "currency": "USD" if usd else "KRW", "price": price, "discounted_price": discounted, "stock": stock,
        "secret": f"secret-{pid:04d}", "created_at": date, "issued_at": date, "images": images,
    })

os.makedirs(f"{ROOT}/openmarket", exist_ok=True)
with open(f"{ROOT}/openmarket/vendors.json", "w") as f:
    json.dump({"vendors": vendors}, f, ensure_ascii=False, indent=2)
    f.write("\n")
with open(f"{ROOT}/openmarket/products.json", "w") as f:
    f.write('{\n  "products": [\n')
    f.write(",\n".join("    " + json.dumps(p, ensure_ascii=False) for p in products))
    f.write("\n  ]\n}\n")
print(len(products), "products")
