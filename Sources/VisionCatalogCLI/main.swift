import VisionCatalog

print("vision-catalog")
