nine

